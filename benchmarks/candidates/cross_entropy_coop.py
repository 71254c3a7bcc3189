# drill: cross-entropy
"""Alternative reference for `cross-entropy` (a candidate for issue 21's 2x goal; not the shipped solution): ONE read
of the logits. The row is split over G co-resident programs that each hold their chunk in registers until the row's
log-sum-exp is known, then write the chunk's gradient from registers: 2 passes over T x V (read once, write once,
4.2 GB at (8192, 128256) bf16) instead of the shipped reference's 3 (6.3 GB).

Schedule (a persistent, cooperative kernel):
- The grid is n_groups x G programs, at most PROGRAMS_PER_SM x the SM count, so that every program is resident at
  once (the wrapper decides G and the grid from the device; see `_plan`). Program pid is chunk j = pid % G of group
  g = pid // G; group g takes rows g, g + n_groups, g + 2 n_groups, ...
- Per row, program j loads chunk j (BLOCK = next_pow2(cdiv(V, G)) elements) once, computes its max m_j and sum of
  exp s_j = sum(exp(x - m_j)), and publishes (m_j, s_j) to the row's slot j of a (T, G) buffer. It then waits until
  the G slots of the row are published, combines them (M = max m_j, lse = M + log(sum s_j exp(m_j - M))) and writes
  (softmax - one_hot) / n_valid over its chunk, in place of the logits (as the shipped reference and Liger do). The
  program whose chunk holds the target writes the row's loss; ignored rows get a zero gradient and no wait.
- FLAG = True: a partial is its own ready flag. (m_j, s_j) are packed into one int64 (the float32 bits of m_j high,
  s_j low), written with a relaxed 64-bit `tl.atomic_xchg` into a zeroed slot; readers spin on volatile loads of the
  G slots until none is 0. A packed partial is never 0: a finite m_j comes with s_j >= 1 (the max's own exp(0)), an
  empty chunk has m_j = -inf (bits 0xff800000). No counter and no release: the relaxed exchange does not wait for
  the program's earlier gradient stores to drain (an acq_rel atomic does: docs/training.md "L2 batch 1").
  FLAG = False: the brief's counter barrier: plain stores of m_j and s_j, `tl.debug_barrier()`, a per-row counter
  `tl.atomic_add(cnt, 1, sem="acq_rel", scope="gpu")`, a spin on `tl.atomic_add(cnt, 0, sem="acquire")` until it
  reads G, then the partials read with cache_modifier=".cg" (L2, not the SM's incoherent L1). One counter per row,
  zeroed per call, so no counter is reset mid-run and no goal has to grow.
- PIPE = 1: the next row's chunk (and target) is loaded before the wait, so its load is in flight while the
  program waits for its siblings (two register buffers: the current row in float32, the next in the logits' dtype);
  PIPE = 2: two rows ahead (three buffers); PIPE = 0: the next row loaded after this one's gradient.
- AHEAD = True (`_ce_coop_ahead`): the partials are published a row ahead too. In iteration k a program issues the
  load of row k + 2, publishes row k + 1's partial (its chunk loaded an iteration earlier), and only then waits for
  row k's G partials, which its siblings published during their iteration k - 1: the wait rarely spins, and the
  row's barrier latency is off the critical path. No deadlock: publishing row k + 1 waits on nothing but the
  program's own loads, so by induction every row's partials are published.
- REREAD = True (`_ce_coop_reread`): not one read but a re-read that L2 serves by construction. Program j walks
  chunk j in SUB_V-element steps (online max and sum), publishes, waits, and walks the chunk again for the
  gradient; between its first read and its re-read the GPU reads about one chunk per resident program (528 x 32 KB
  = 17 MB at G = 8, 4 per SM), well under L2. Nothing is held across the wait, so PROGRAMS_PER_SM programs share an
  SM and hide each other's waits (batch 1: one program per SM streamed at 22 GB/s per SM, docs/training.md).
Why the wait cannot deadlock on a GPU: every program is resident at once. With PROGRAMS_PER_SM = 1 the grid is at
most the SM count, and one program of this kernel always fits an idle SM (ptxas bounds the registers by the launch's
thread count; Triton refuses shared memory beyond the SM's); the kernels before and after it in the stream are not
running meanwhile, and another stream's kernel finishes without waiting for this one. Not safe where the SMs are
capped below the device's count (MPS active-thread percentage, green contexts): there `_plan` would have to be told.
Triton's interpreter runs programs one after another, so a program waiting for a later sibling would spin forever
on the CPU: there G = 1 and the block is the whole row; the program's own slot is the only one and is published
before the wait, which is then satisfied at once. The same kernel runs on both.

Counting n_valid, the mean of the row losses and the backward's scale by grad_output are the shipped reference's.
Extra memory: the (T, G) slots (int64, 0.5 MB at T = 8192, G = 8) and the (T,) row losses.
"""
import torch
import triton
import triton.language as tl

GROUP = 4            # programs per row on a GPU (G); raised when a chunk would exceed MAX_BLOCK (batch 1's fastest)
NUM_WARPS = 16       # per program (fewer for small blocks: at most BLOCK / 256)
PROGRAMS_PER_SM = 1  # resident programs per SM the grid is sized for (1: always resident, see the docstring)
FLAG = True          # the partials as their own ready flags (else a per-row acq_rel counter)
PIPE = 1             # 1: the next row's chunk loaded before waiting for this row's siblings; 2: two rows ahead; 0: after
CPU_GROUPS = 4       # groups on the CPU (G = 1 there): each walks several rows, as on a GPU
AHEAD = False        # True: _ce_coop_ahead (row k + 1 published before row k's wait; PIPE then unused)
CACHE_E = False      # keep exp(x - m_j), not the logits, for the gradient (one exp per element; both kernels)
REREAD = False       # True: _ce_coop_reread (chunks walked twice, the re-read from L2; FLAG's wait; SUB-element steps)
SUB_V = 4096         # REREAD: elements per step (a power of two)
WAIT = True          # False: no wait for the siblings (wrong values; benchmarks/ce_coop_probe.py times the wait's cost)
MAX_BLOCK = 32768    # the largest chunk held in registers (elements)
BLOCK_T = 1024       # targets per step of the counting and summing kernels


@triton.jit
def _count_valid(Target, NValid, T, ignore_index, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    for off in range(0, T, BLOCK):
        rows = off + tl.arange(0, BLOCK)
        y = tl.load(Target + rows, mask=rows < T, other=ignore_index)
        acc += (y != ignore_index).to(tl.int32)
    tl.store(NValid, tl.sum(acc, axis=0).to(tl.float32))


@triton.jit
def _ce_coop(X, stride, Target, Loss, NValid, Part, PartM, PartS, Cnt, T, V, ignore_index, n_groups,
             G: tl.constexpr, BLOCK: tl.constexpr, FLAG: tl.constexpr, PIPE: tl.constexpr,
             WAIT: tl.constexpr = True, CACHE_E: tl.constexpr = False):
    pid = tl.program_id(0)
    grp = pid // G
    j = pid % G
    lo = j * BLOCK
    cols = lo + tl.arange(0, BLOCK)
    in_v = cols < V
    lanes = tl.arange(0, G)
    inv_n = 1.0 / tl.load(NValid)
    # (a scalar condition is broadcast over cols by hand: the interpreter rejects a vector & scalar mask)
    # the first row's chunk and target, and the next row's target (the wrapper makes n_groups <= T)
    y = tl.load(Target + grp)
    grp64 = grp.to(tl.int64)
    x = tl.load(X + grp64 * stride + cols, mask=in_v & (cols * 0 + y != ignore_index), other=float("-inf"))
    y_n = tl.load(Target + grp + n_groups, mask=grp + n_groups < T, other=ignore_index)
    if PIPE == 2:  # two rows ahead: the next row's chunk before the loop, the one after it in each iteration
        x_n = tl.load(X + (grp64 + n_groups) * stride + cols, mask=in_v & (cols * 0 + y_n != ignore_index),
                      other=float("-inf"))
        y_nn = tl.load(Target + grp + 2 * n_groups, mask=grp + 2 * n_groups < T, other=ignore_index)
    for row in range(grp, T, n_groups):
        row64 = grp64 + (row - grp)  # int64 (the interpreter's loop variable is a Python int)
        base = row64 * stride
        valid = y != ignore_index
        owner = valid & (y >= lo) & (y < lo + BLOCK)
        x_y = tl.load(X + base + y, mask=owner, other=0.0).to(tl.float32)  # before this program overwrites it
        xf = x.to(tl.float32)
        m = tl.max(xf, axis=0)
        e = tl.exp(xf - m)  # CACHE_E keeps it for the gradient, in place of xf: one exp per element
        s = tl.sum(e, axis=0)
        s = tl.where(m == float("-inf"), 0.0, s)  # an empty chunk (beyond V, or an ignored row): no exp(nan)
        slot = row * G + j
        if FLAG:
            packed = (m.to(tl.int32, bitcast=True).to(tl.int64) << 32) | \
                (s.to(tl.int32, bitcast=True).to(tl.int64) & 0xFFFFFFFF)
            tl.atomic_xchg(Part + slot, packed, sem="relaxed")
        else:
            tl.store(PartM + slot, m)
            tl.store(PartS + slot, s)
            tl.debug_barrier()  # every thread's stores before the one thread's release
            tl.atomic_add(Cnt + row, 1, sem="acq_rel", scope="gpu")
        nrow = row + n_groups
        if PIPE == 2:
            x_nn = tl.load(X + (row64 + 2 * n_groups) * stride + cols,
                           mask=in_v & (cols * 0 + y_nn != ignore_index), other=float("-inf"))
            y_nnn = tl.load(Target + nrow + 2 * n_groups, mask=nrow + 2 * n_groups < T, other=ignore_index)
        elif PIPE:  # the next row in flight while this one waits
            x_n = tl.load(X + (row64 + n_groups) * stride + cols, mask=in_v & (cols * 0 + y_n != ignore_index),
                          other=float("-inf"))
            y_nn = tl.load(Target + nrow + n_groups, mask=nrow + n_groups < T, other=ignore_index)
        if FLAG:
            p = tl.load(Part + row * G + lanes, volatile=True)
            if WAIT:
                while (tl.sum((p == 0).to(tl.int32), axis=0) > 0) & valid:
                    p = tl.load(Part + row * G + lanes, volatile=True)
            mj = (p >> 32).to(tl.int32).to(tl.float32, bitcast=True)
            sj = (p & 0xFFFFFFFF).to(tl.int32).to(tl.float32, bitcast=True)
        else:
            c = tl.atomic_add(Cnt + row, 0, sem="acquire", scope="gpu")
            if WAIT:
                while (c < G) & valid:
                    c = tl.atomic_add(Cnt + row, 0, sem="acquire", scope="gpu")
            mj = tl.load(PartM + row * G + lanes, cache_modifier=".cg")
            sj = tl.load(PartS + row * G + lanes, cache_modifier=".cg")
        big = tl.max(mj, axis=0)
        lse = big + tl.log(tl.sum(tl.where(mj == float("-inf"), 0.0, sj * tl.exp(mj - big)), axis=0))
        if CACHE_E:
            g = e * tl.exp(m - lse)
        else:
            g = tl.exp(xf - lse)
        g = tl.where(cols == y, g - 1.0, g) * inv_n
        g = tl.where(valid, g, 0.0)
        tl.store(X + base + cols, g.to(X.dtype.element_ty), mask=in_v)
        tl.store(Loss + row, tl.where(valid, lse - x_y, 0.0), mask=owner | ((j == 0) & (y == ignore_index)))
        if not PIPE:
            x_n = tl.load(X + (row64 + n_groups) * stride + cols, mask=in_v & (cols * 0 + y_n != ignore_index),
                          other=float("-inf"))
            y_nn = tl.load(Target + nrow + n_groups, mask=nrow + n_groups < T, other=ignore_index)
        x = x_n
        y = y_n
        y_n = y_nn
        if PIPE == 2:
            x_n = x_nn
            y_nn = y_nnn


@triton.jit
def _publish(X, stride, Part, PartM, PartS, Cnt, row, T, j, lo, cols, x, y, ignore_index,
             G: tl.constexpr, BLOCK: tl.constexpr, FLAG: tl.constexpr):
    """Publish chunk j's (max, sum of exp) of `row` (nothing past T); return the target's logit (0 unless the
    target is in this chunk), exp(x - max) and the max (for CACHE_E: the gradient is then exp(x - max) x
    exp(max - lse), one exp per element instead of two)."""
    xf = x.to(tl.float32)
    m = tl.max(xf, axis=0)
    s = tl.sum(tl.exp(xf - m), axis=0)
    s = tl.where(m == float("-inf"), 0.0, s)
    slot = row * G + j
    here = row < T
    if FLAG:
        packed = (m.to(tl.int32, bitcast=True).to(tl.int64) << 32) | \
            (s.to(tl.int32, bitcast=True).to(tl.int64) & 0xFFFFFFFF)
        tl.atomic_xchg(Part + slot, packed, mask=here, sem="relaxed")
    else:
        tl.store(PartM + slot, m, mask=here)
        tl.store(PartS + slot, s, mask=here)
        tl.debug_barrier()
        tl.atomic_add(Cnt + row, 1, mask=here, sem="acq_rel", scope="gpu")
    owner = (y != ignore_index) & (y >= lo) & (y < lo + BLOCK)
    x_y = tl.load(X + row.to(tl.int64) * stride + y, mask=owner, other=0.0).to(tl.float32)
    return x_y, tl.exp(xf - m), m


@triton.jit
def _ce_coop_ahead(X, stride, Target, Loss, NValid, Part, PartM, PartS, Cnt, T, V, ignore_index, n_groups,
                   G: tl.constexpr, BLOCK: tl.constexpr, FLAG: tl.constexpr, WAIT: tl.constexpr = True,
                   CACHE_E: tl.constexpr = False):
    """AHEAD: row k + 1's partial is published before row k's wait, so the siblings' partials of row k were
    published an iteration earlier and the wait rarely spins; chunks are loaded two rows ahead. No deadlock: a
    program publishes row k + 1 without waiting for anything but its own loads, so by induction on k every row's
    G partials are published. With FLAG, row k's slots are read at the top of iteration k, before row k + 1's
    partial is computed: the read's round trip overlaps that work, and the spin only runs if a sibling is late.
    CACHE_E keeps exp(x - m_j) of the row (float32) instead of its logits, so the gradient needs no second exp."""
    pid = tl.program_id(0)
    grp = pid // G
    j = pid % G
    lo = j * BLOCK
    cols = lo + tl.arange(0, BLOCK)
    in_v = cols < V
    lanes = tl.arange(0, G)
    inv_n = 1.0 / tl.load(NValid)
    grp64 = grp.to(tl.int64)
    ng = n_groups
    y0 = tl.load(Target + grp)
    x0 = tl.load(X + grp64 * stride + cols, mask=in_v & (cols * 0 + y0 != ignore_index), other=float("-inf"))
    y1 = tl.load(Target + grp + ng, mask=grp + ng < T, other=ignore_index)
    x1 = tl.load(X + (grp64 + ng) * stride + cols, mask=in_v & (cols * 0 + y1 != ignore_index), other=float("-inf"))
    y2 = tl.load(Target + grp + 2 * ng, mask=grp + 2 * ng < T, other=ignore_index)
    xy0, e0, m0 = _publish(X, stride, Part, PartM, PartS, Cnt, grp, T, j, lo, cols, x0, y0, ignore_index,
                           G, BLOCK, FLAG)
    for row in range(grp, T, ng):
        row64 = grp64 + (row - grp)
        if FLAG:  # row k's slots, read early: the siblings published them an iteration ago
            p = tl.load(Part + row * G + lanes, volatile=True)
        x2 = tl.load(X + (row64 + 2 * ng) * stride + cols, mask=in_v & (cols * 0 + y2 != ignore_index),
                     other=float("-inf"))
        y3 = tl.load(Target + row + 3 * ng, mask=row + 3 * ng < T, other=ignore_index)
        xy1, e1, m1 = _publish(X, stride, Part, PartM, PartS, Cnt, row + ng, T, j, lo, cols, x1, y1, ignore_index,
                               G, BLOCK, FLAG)
        valid = y0 != ignore_index
        if FLAG:
            if WAIT:
                while (tl.sum((p == 0).to(tl.int32), axis=0) > 0) & valid:
                    p = tl.load(Part + row * G + lanes, volatile=True)
            mj = (p >> 32).to(tl.int32).to(tl.float32, bitcast=True)
            sj = (p & 0xFFFFFFFF).to(tl.int32).to(tl.float32, bitcast=True)
        else:
            c = tl.atomic_add(Cnt + row, 0, sem="acquire", scope="gpu")
            if WAIT:
                while (c < G) & valid:
                    c = tl.atomic_add(Cnt + row, 0, sem="acquire", scope="gpu")
            mj = tl.load(PartM + row * G + lanes, cache_modifier=".cg")
            sj = tl.load(PartS + row * G + lanes, cache_modifier=".cg")
        big = tl.max(mj, axis=0)
        lse = big + tl.log(tl.sum(tl.where(mj == float("-inf"), 0.0, sj * tl.exp(mj - big)), axis=0))
        if CACHE_E:
            g = e0 * tl.exp(m0 - lse)
        else:
            g = tl.exp(x0.to(tl.float32) - lse)
        g = tl.where(cols == y0, g - 1.0, g) * inv_n
        g = tl.where(valid, g, 0.0)
        tl.store(X + row64 * stride + cols, g.to(X.dtype.element_ty), mask=in_v)
        owner = valid & (y0 >= lo) & (y0 < lo + BLOCK)
        tl.store(Loss + row, tl.where(valid, lse - xy0, 0.0), mask=owner | ((j == 0) & (y0 == ignore_index)))
        x0 = x1
        x1 = x2
        y0 = y1
        y1 = y2
        y2 = y3
        xy0 = xy1
        e0 = e1
        m0 = m1


@triton.jit
def _ce_coop_reread(X, stride, Target, Loss, NValid, Part, T, V, ignore_index, n_groups, CHUNK,
                    G: tl.constexpr, SUB: tl.constexpr, WAIT: tl.constexpr = True):
    """REREAD: two reads, the second from L2 by construction. Program j of a group walks chunk j of its row
    ([j CHUNK, (j + 1) CHUNK), CHUNK a multiple of SUB) in SUB-element steps with an online max and sum, publishes
    the chunk's partial (FLAG's packed int64), waits for the row's G partials, then walks the chunk again writing
    the gradient. Between a program's first read of its chunk and its re-read, the whole GPU reads at most one
    chunk per resident program (e.g. 528 x 32 KB = 17 MB), far less than L2; and nothing is held in registers
    across the wait, so several programs fit an SM and overlap each other's waits."""
    pid = tl.program_id(0)
    grp = pid // G
    j = pid % G
    lo = j * CHUNK
    hi = tl.minimum(lo + CHUNK, V)
    lanes = tl.arange(0, G)
    inv_n = 1.0 / tl.load(NValid)
    grp64 = grp.to(tl.int64)
    for row in range(grp, T, n_groups):
        base = (grp64 + (row - grp)) * stride
        y = tl.load(Target + row)
        valid = y != ignore_index
        owner = valid & (y >= lo) & (y < hi)
        x_y = tl.load(X + base + y, mask=owner, other=0.0).to(tl.float32)
        m = float("-inf")
        d = 0.0
        for off in range(0, CHUNK, SUB):
            cols = lo + off + tl.arange(0, SUB)
            x = tl.load(X + base + cols, mask=(cols < hi) & (cols * 0 + y != ignore_index),
                        other=float("-inf")).to(tl.float32)
            m_new = tl.maximum(m, tl.max(x, axis=0))
            d = tl.where(m_new == float("-inf"), 0.0,
                         d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0))
            m = m_new
        packed = (m.to(tl.int32, bitcast=True).to(tl.int64) << 32) | \
            (d.to(tl.int32, bitcast=True).to(tl.int64) & 0xFFFFFFFF)
        tl.atomic_xchg(Part + row * G + j, packed, sem="relaxed")
        p = tl.load(Part + row * G + lanes, volatile=True)
        if WAIT:
            while (tl.sum((p == 0).to(tl.int32), axis=0) > 0) & valid:
                p = tl.load(Part + row * G + lanes, volatile=True)
        mj = (p >> 32).to(tl.int32).to(tl.float32, bitcast=True)
        sj = (p & 0xFFFFFFFF).to(tl.int32).to(tl.float32, bitcast=True)
        big = tl.max(mj, axis=0)
        lse = big + tl.log(tl.sum(tl.where(mj == float("-inf"), 0.0, sj * tl.exp(mj - big)), axis=0))
        for off in range(0, CHUNK, SUB):
            cols = lo + off + tl.arange(0, SUB)
            x = tl.load(X + base + cols, mask=(cols < hi) & (cols * 0 + y != ignore_index),
                        other=float("-inf")).to(tl.float32)
            g = tl.exp(x - lse)
            g = tl.where(cols == y, g - 1.0, g) * inv_n
            g = tl.where(valid, g, 0.0)
            tl.store(X + base + cols, g.to(X.dtype.element_ty), mask=cols < hi)
        tl.store(Loss + row, tl.where(valid, lse - x_y, 0.0), mask=owner | ((j == 0) & (y == ignore_index)))


@triton.jit
def _mean_loss(Loss, NValid, Out, T, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, T, BLOCK):
        rows = off + tl.arange(0, BLOCK)
        acc += tl.load(Loss + rows, mask=rows < T, other=0.0)
    total = tl.sum(acc, axis=0)
    tl.store(Out, (total / tl.load(NValid)).to(Out.dtype.element_ty))


@triton.jit
def _scale_grad(G, stride, GradOut, V, BLOCK_V: tl.constexpr):
    g = tl.load(GradOut).to(tl.float32)
    if g != 1.0:  # the usual loss.backward(): nothing to do
        row = tl.program_id(0).to(tl.int64)
        G += row * stride
        for off in range(0, V, BLOCK_V):
            cols = off + tl.arange(0, BLOCK_V)
            x = tl.load(G + cols, mask=cols < V).to(tl.float32)
            tl.store(G + cols, (x * g).to(G.dtype.element_ty), mask=cols < V)


def _plan(device: torch.device, t: int, v: int) -> tuple[int, int, int]:
    """(G, BLOCK, n_groups). CPU (the interpreter runs programs one after another): G = 1, the whole row,
    CPU_GROUPS groups. CUDA: G = GROUP (doubled while a chunk exceeds MAX_BLOCK), n_groups x G <= PROGRAMS_PER_SM x SMs."""
    if device.type != "cuda":
        return 1, triton.next_power_of_2(v), min(t, CPU_GROUPS)
    g = GROUP
    while triton.cdiv(v, g) > MAX_BLOCK:
        g *= 2
    resident = PROGRAMS_PER_SM * torch.cuda.get_device_properties(device).multi_processor_count
    if g > resident:
        raise ValueError(f"V = {v} needs {g} programs per row, more than the {resident} that can be resident")
    return g, triton.next_power_of_2(triton.cdiv(v, g)), min(t, resident // g)


class CrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target, ignore_index):
        T, V = logits.shape
        assert logits.stride(1) == 1, "the vocab dim must be contiguous"
        dev = logits.device
        n_valid = torch.empty((1,), dtype=torch.float32, device=dev)
        loss_rows = torch.empty((T,), dtype=torch.float32, device=dev)
        loss = torch.empty((), dtype=logits.dtype, device=dev)
        g, block, n_groups = _plan(dev, T, V)
        if FLAG or REREAD:
            part = torch.zeros((T, g), dtype=torch.int64, device=dev)
            part_m = part_s = cnt = part
        else:
            part = torch.empty((1,), dtype=torch.int64, device=dev)
            part_m = torch.empty((T, g), dtype=torch.float32, device=dev)
            part_s = torch.empty((T, g), dtype=torch.float32, device=dev)
            cnt = torch.zeros((T,), dtype=torch.int32, device=dev)
        _count_valid[(1,)](target, n_valid, T, ignore_index, BLOCK=BLOCK_T)
        warps = max(1, min(NUM_WARPS, block // 256))
        args = (logits, logits.stride(0), target, loss_rows, n_valid, part, part_m, part_s, cnt, T, V, ignore_index,
                n_groups)
        if REREAD:
            sub = min(SUB_V, block)
            chunk = triton.cdiv(triton.cdiv(V, g), sub) * sub
            _ce_coop_reread[(n_groups * g,)](logits, logits.stride(0), target, loss_rows, n_valid, part, T, V,
                                             ignore_index, n_groups, chunk, G=g, SUB=sub, WAIT=WAIT,
                                             num_warps=max(1, min(NUM_WARPS, sub // 256)))
        elif AHEAD:
            _ce_coop_ahead[(n_groups * g,)](*args, G=g, BLOCK=block, FLAG=FLAG, WAIT=WAIT, CACHE_E=CACHE_E,
                                            num_warps=warps)
        else:
            _ce_coop[(n_groups * g,)](*args, G=g, BLOCK=block, FLAG=FLAG, PIPE=PIPE, WAIT=WAIT, CACHE_E=CACHE_E,
                                      num_warps=warps)
        _mean_loss[(1,)](loss_rows, n_valid, loss, T, BLOCK=BLOCK_T)
        ctx.save_for_backward(logits.detach())  # now holds the gradient of the mean loss
        ctx.block = min(8192, triton.next_power_of_2(V))
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        (grad,) = ctx.saved_tensors
        T, V = grad.shape
        _scale_grad[(T,)](grad, grad.stride(0), grad_output, V, BLOCK_V=ctx.block, num_warps=16)
        return grad, None, None


def cross_entropy(logits: torch.Tensor, target: torch.Tensor, ignore_index: int = -100) -> torch.Tensor:
    return CrossEntropy.apply(logits, target, ignore_index)
