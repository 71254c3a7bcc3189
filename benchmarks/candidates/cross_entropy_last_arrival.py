# drill: cross-entropy
"""Alternative reference for `cross-entropy` (a candidate for issue 21's speed goal; not the shipped solution): the
row split into chunks, one program per (row, chunk), so that the gradient pass re-reads a row while the first
pass's reads of it are still in L2.

The shipped reference (one program per row, two passes over V) moves 6.3 GB per step at (8192, 128256) bf16: the
row read for the max and sum, read again for the gradient, written once. Hundreds of 256 KB rows are in flight, more
than the H200's 60 MB L2, so the second read comes from HBM (docs/training.md). Here:

1. Program (row, c) reads chunk c of the row once (CHUNK elements), writes the chunk's max and sum of exp to small
   (T, C) buffers (and, if the chunk holds the target, the target logit to a (T,) buffer), then adds 1 to the row's
   counter with `tl.atomic_add` (sem acq_rel, scope gpu: Triton's defaults; written out). The release orders its
   partial stores before the count; the acquire of the program that sees the count reach C makes all of them
   visible to it. In the sm_90 PTX one thread issues `atom.global.gpu.acq_rel.add.u32` after a `bar.sync` (the
   `tl.debug_barrier()` here: every thread's stores come before the release) and hands the old value to the other
   threads through shared memory behind another `bar.sync`, so their reads of the partials come after the acquire.
2. LAG = 0, "last arrival finalises": the program whose add returned C - 1 combines the C partials into the row's
   lse, writes the row's loss and walks the whole row once more writing (softmax - one_hot) / n_valid over the
   logits. Its siblings read the same row moments before, so the re-read can hit L2.
3. LAG > 0, "later programs help": program (row, c) also does chunk c's gradient of row `row - LAG` when that row
   is complete (its counter reads C through an acquiring `atomic_add(..., 0)`), claiming the chunk with
   `tl.atomic_cas(flag, 0, 2)` on a (T, C) flag; the row's last arrival claims with `atomic_cas(flag, 0, 1)` and
   writes every chunk nobody took (STATS keeps the last call's flags: who did the work). Every program does a chunk
   of first pass and at most a chunk of gradient, so the work is even, and the re-read trails the first read by
   about LAG rows (LAG x 256 KB read, as much written), however many programs are in flight. The grid has LAG extra
   rows of programs that only help.
No program waits for another (no spinning): Triton's interpreter, which runs programs one after another, gets the
same answer (there the last arrival always does the whole row).

The partials are read after the acquire with `cache_modifier=".cg"` (cache in L2, not L1): L1 is not coherent
between SMs, and the values were written by other programs on other SMs; ".cg" reads them where the release put
them (".cv" would refetch from memory, more than needed). The target's logit goes through its own buffer because a
helper may already have overwritten the target's chunk with its gradient when the loss is computed.
Counting n_valid, the mean of the row losses and the backward's scale by grad_output are the shipped reference's.
The counters and claims are one (T, C + 1) int32 buffer zeroed per call.

Measured (H200, torch 2.11 / triton 3.6, 2026-12-01, docs/training.md "L2 batch 1"): correct, and slower than the
shipped reference at every schedule timed: best 1679 µs (CHUNK 8192, 16 warps, LAG 0) against 1507 µs.
"""
import torch
import triton
import triton.language as tl

CHUNK = 8192     # vocab elements per (row, chunk) program, a power of two capped by next_power_of_2(V)
NUM_WARPS = 8
LAG = 0          # 0: the row's last arrival writes its whole gradient; > 0: program (r, c) helps row r - LAG
EVICT = False    # first pass evict_last (keep in L2), gradient pass loads and stores evict_first
BLOCK_T = 1024   # targets per step of the counting and summing kernels
STATS = {}       # the last call's (T, C + 1) counters and claims: 1 where the last arrival wrote a chunk, 2 a helper


@triton.jit
def _count_valid(Target, NValid, T, ignore_index, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    for off in range(0, T, BLOCK):
        rows = off + tl.arange(0, BLOCK)
        y = tl.load(Target + rows, mask=rows < T, other=ignore_index)
        acc += (y != ignore_index).to(tl.int32)
    tl.store(NValid, tl.sum(acc, axis=0).to(tl.float32))


@triton.jit
def _row_lse(PartM, PartS, r, C: tl.constexpr, CP: tl.constexpr):
    """The row's log-sum-exp from its C chunk partials (read past L1: other SMs wrote them)."""
    k = tl.arange(0, CP)
    pm = tl.load(PartM + r * C + k, mask=k < C, other=float("-inf"), cache_modifier=".cg")
    ps = tl.load(PartS + r * C + k, mask=k < C, other=0.0, cache_modifier=".cg")
    m = tl.max(pm, axis=0)
    return m + tl.log(tl.sum(ps * tl.exp(pm - m), axis=0))


@triton.jit
def _grad_chunk(Xr, c, y, lse, inv_n, V, CHUNK: tl.constexpr, EVICT: tl.constexpr):
    cols = c * CHUNK + tl.arange(0, CHUNK)
    live = cols < V
    if EVICT:
        x = tl.load(Xr + cols, mask=live, other=0.0, eviction_policy="evict_first").to(tl.float32)
    else:
        x = tl.load(Xr + cols, mask=live, other=0.0).to(tl.float32)
    g = tl.exp(x - lse)
    g = tl.where(cols == y, g - 1.0, g) * inv_n
    if EVICT:
        tl.store(Xr + cols, g.to(Xr.dtype.element_ty), mask=live, eviction_policy="evict_first")
    else:
        tl.store(Xr + cols, g.to(Xr.dtype.element_ty), mask=live)


@triton.jit
def _ce_chunks(X, stride, Target, Loss, NValid, PartM, PartS, XY, Sync, T, V, ignore_index,
               C: tl.constexpr, CP: tl.constexpr, CHUNK: tl.constexpr, LAG: tl.constexpr, EVICT: tl.constexpr):
    pid = tl.program_id(0)
    row = pid // C
    c = pid % C
    # Sync[r * (C + 1)] counts row r's arrived chunks; Sync[r * (C + 1) + 1 + c] is chunk c's gradient claim
    if row < T:
        y = tl.load(Target + row)
        Xr = X + row.to(tl.int64) * stride
        cols = c * CHUNK + tl.arange(0, CHUNK)
        live = cols < V
        if y == ignore_index:  # no loss and a zero gradient: each chunk zeroes itself, nobody counts
            tl.store(Xr + cols, tl.zeros([CHUNK], dtype=tl.float32).to(X.dtype.element_ty), mask=live)
            if c == 0:
                tl.store(Loss + row, 0.0)
        else:
            if EVICT:
                x = tl.load(Xr + cols, mask=live, other=float("-inf"), eviction_policy="evict_last").to(tl.float32)
            else:
                x = tl.load(Xr + cols, mask=live, other=float("-inf")).to(tl.float32)
            m = tl.max(x, axis=0)
            tl.store(PartM + row * C + c, m)
            tl.store(PartS + row * C + c, tl.sum(tl.exp(x - m), axis=0))
            if (y >= c * CHUNK) & (y < c * CHUNK + CHUNK):
                tl.store(XY + row, tl.sum(tl.where(cols == y, x, 0.0), axis=0))
            tl.debug_barrier()  # every thread's stores before the count's release (one thread issues the atomic)
            old = tl.atomic_add(Sync + row * (C + 1), 1, sem="acq_rel", scope="gpu")
            if old == C - 1:  # the last arrival: every partial of this row is visible now
                lse = _row_lse(PartM, PartS, row, C, CP)
                x_y = tl.load(XY + row, cache_modifier=".cg")
                tl.store(Loss + row, lse - x_y)
                inv_n = 1.0 / tl.load(NValid)
                for k in range(0, C):
                    if LAG == 0:
                        _grad_chunk(Xr, k, y, lse, inv_n, V, CHUNK, EVICT)
                    else:
                        if tl.atomic_cas(Sync + row * (C + 1) + 1 + k, 0, 1, sem="acq_rel", scope="gpu") == 0:
                            _grad_chunk(Xr, k, y, lse, inv_n, V, CHUNK, EVICT)
    if LAG > 0:
        r = row - LAG
        if (r >= 0) & (r < T):
            y_r = tl.load(Target + r)
            if y_r != ignore_index:
                done = tl.atomic_add(Sync + r * (C + 1), 0, sem="acq_rel", scope="gpu")
                if done == C:
                    if tl.atomic_cas(Sync + r * (C + 1) + 1 + c, 0, 2, sem="acq_rel", scope="gpu") == 0:
                        lse = _row_lse(PartM, PartS, r, C, CP)
                        inv_n = 1.0 / tl.load(NValid)
                        _grad_chunk(X + r.to(tl.int64) * stride, c, y_r, lse, inv_n, V, CHUNK, EVICT)


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


def _chunk(v: int) -> int:
    return min(CHUNK, triton.next_power_of_2(v))


class CrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target, ignore_index):
        T, V = logits.shape
        assert logits.stride(1) == 1, "the vocab dim must be contiguous"
        chunk = _chunk(V)
        C = triton.cdiv(V, chunk)
        dev = logits.device
        n_valid = torch.empty((1,), dtype=torch.float32, device=dev)
        loss_rows = torch.empty((T,), dtype=torch.float32, device=dev)
        part_m = torch.empty((T, C), dtype=torch.float32, device=dev)
        part_s = torch.empty((T, C), dtype=torch.float32, device=dev)
        x_y = torch.empty((T,), dtype=torch.float32, device=dev)
        sync = torch.zeros((T, C + 1), dtype=torch.int32, device=dev)
        loss = torch.empty((), dtype=logits.dtype, device=dev)
        _count_valid[(1,)](target, n_valid, T, ignore_index, BLOCK=BLOCK_T)
        _ce_chunks[((T + LAG) * C,)](logits, logits.stride(0), target, loss_rows, n_valid, part_m, part_s, x_y, sync,
                                      T, V, ignore_index, C=C, CP=triton.next_power_of_2(C), CHUNK=chunk, LAG=LAG,
                                      EVICT=EVICT, num_warps=NUM_WARPS)
        _mean_loss[(1,)](loss_rows, n_valid, loss, T, BLOCK=BLOCK_T)
        STATS["sync"] = sync
        ctx.save_for_backward(logits.detach())  # now holds the gradient of the mean loss
        ctx.chunk = chunk
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        (grad,) = ctx.saved_tensors
        T, V = grad.shape
        _scale_grad[(T,)](grad, grad.stride(0), grad_output, V, BLOCK_V=ctx.chunk, num_warps=NUM_WARPS)
        return grad, None, None


def cross_entropy(logits: torch.Tensor, target: torch.Tensor, ignore_index: int = -100) -> torch.Tensor:
    return CrossEntropy.apply(logits, target, ignore_index)
