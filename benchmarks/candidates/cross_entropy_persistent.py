# drill: cross-entropy
"""Alternative reference for `cross-entropy` (a candidate, issue 21's speed; not yet the shipped solution): the
shipped reference's Liger-style kernel (online log-sum-exp, then the gradient written over the logits), made
persistent so that the second read of each row can come from L2 instead of HBM.

The shipped reference launches one program per row; with several programs per SM, hundreds of 256 KB rows
(V = 128256 bf16) are in flight, more than the H200's L2 (50 MB) holds, so the gradient pass re-reads the row from
HBM: 6.3 GB moved per step, 87 % of the bandwidth at 1507 us (docs/training.md). Here the grid is PROGRAMS_PER_SM
programs per SM, each walking rows p, p + P, ...: at one per SM, 132 rows (33 MB) are in flight. REVERSE walks the
gradient pass from the row's end, where the first pass ended (the most recently read blocks first); EVICT asks L2
to keep the first pass's lines (evict_last) and to drop the second pass's (evict_first). PREFETCH issues the next
block's load before the current block is reduced (two loads in flight per program: one program per SM has to keep
the bandwidth busy on its own).
Counting n_valid, the per-row losses' mean and the backward's scale by grad_output are the shipped reference's.
"""
import torch
import triton
import triton.language as tl

BLOCK_V = 8192   # vocab elements per step, a power of two capped by next_power_of_2(V): see docs/training.md
NUM_WARPS = 16  # H200, (8192, 128256) bf16: 8192 x 16 warps 1507 µs, Liger's 32768 x 32 1524 µs
BLOCK_T = 1024   # targets per step of the counting and summing kernels
PROGRAMS_PER_SM = 1
CPU_PROGRAMS = 4  # the interpreter: a few programs, each walking several rows
REVERSE = True
EVICT = True
PREFETCH = False


@triton.jit
def _count_valid(Target, NValid, T, ignore_index, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    for off in range(0, T, BLOCK):
        rows = off + tl.arange(0, BLOCK)
        y = tl.load(Target + rows, mask=rows < T, other=ignore_index)
        acc += (y != ignore_index).to(tl.int32)
    tl.store(NValid, tl.sum(acc, axis=0).to(tl.float32))


@triton.jit
def _block(Xr, blk, V, BLOCK_V: tl.constexpr, POLICY: tl.constexpr):
    """Block `blk` of a row (masked past either end: a prefetch past the last block moves nothing); POLICY 1 asks L2
    to keep the lines (evict_last), 2 to drop them first (evict_first), 0 neither."""
    cols = blk * BLOCK_V + tl.arange(0, BLOCK_V)
    live = (cols >= 0) & (cols < V)
    if POLICY == 1:
        x = tl.load(Xr + cols, mask=live, other=float("-inf"), eviction_policy="evict_last")
    elif POLICY == 2:
        x = tl.load(Xr + cols, mask=live, other=float("-inf"), eviction_policy="evict_first")
    else:
        x = tl.load(Xr + cols, mask=live, other=float("-inf"))
    return x


@triton.jit
def _ce_fwd_grad(X, stride, Target, Loss, NValid, T, V, ignore_index, BLOCK_V: tl.constexpr,
                 REVERSE: tl.constexpr, EVICT: tl.constexpr, PREFETCH: tl.constexpr):
    # persistent: program p handles rows p, p + P, p + 2P, ... (P = the grid), so only P rows are in flight
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    n_blocks = tl.cdiv(V, BLOCK_V)
    for i in range(0, tl.cdiv(T - pid, nprog)):
        row = pid.to(tl.int64) + i * nprog
        Xr = X + row * stride
        y = tl.load(Target + row)
        if y == ignore_index:  # no loss and a zero gradient for this row
            for off in range(0, V, BLOCK_V):
                cols = off + tl.arange(0, BLOCK_V)
                tl.store(Xr + cols, tl.zeros([BLOCK_V], dtype=tl.float32).to(Xr.dtype.element_ty), mask=cols < V)
            tl.store(Loss + row, 0.0)
        else:
            # online log-sum-exp: m is the running max, d the running sum of exp(x - m)
            m = float("-inf")
            d = 0.0
            if PREFETCH:  # block b + 1's load is issued before block b is reduced: two loads in flight
                nxt = _block(Xr, 0, V, BLOCK_V, 1 if EVICT else 0)
                for b in range(0, n_blocks):
                    x = nxt.to(tl.float32)
                    nxt = _block(Xr, b + 1, V, BLOCK_V, 1 if EVICT else 0)
                    m_new = tl.maximum(m, tl.max(x, axis=0))
                    d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
                    m = m_new
            else:
                for b in range(0, n_blocks):
                    x = _block(Xr, b, V, BLOCK_V, 1 if EVICT else 0).to(tl.float32)
                    m_new = tl.maximum(m, tl.max(x, axis=0))
                    d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
                    m = m_new
            lse = m + tl.log(d)
            x_y = tl.load(Xr + y).to(tl.float32)  # the target logit, read before the row is overwritten
            tl.store(Loss + row, lse - x_y)
            inv_n = 1.0 / tl.load(NValid)
            # REVERSE: the last blocks the first pass read come first, while they are most likely still in L2
            if PREFETCH:
                nxt = _block(Xr, n_blocks - 1 if REVERSE else 0, V, BLOCK_V, 2 if EVICT else 0)
            for j in range(0, n_blocks):
                blk = n_blocks - 1 - j if REVERSE else j
                if PREFETCH:
                    x = nxt
                    nxt = _block(Xr, n_blocks - 2 - j if REVERSE else j + 1, V, BLOCK_V, 2 if EVICT else 0)
                else:
                    x = _block(Xr, blk, V, BLOCK_V, 2 if EVICT else 0)
                cols = blk * BLOCK_V + tl.arange(0, BLOCK_V)
                g = tl.exp(x.to(tl.float32) - lse)
                g = tl.where(cols == y, g - 1.0, g) * inv_n
                tl.store(Xr + cols, g.to(Xr.dtype.element_ty), mask=cols < V)


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


def _programs(t: int, device) -> int:
    """PROGRAMS_PER_SM programs per SM (persistent), at most one per row; on the CPU interpreter CPU_PROGRAMS."""
    if device.type != "cuda":
        return min(t, CPU_PROGRAMS)
    return min(t, PROGRAMS_PER_SM * torch.cuda.get_device_properties(device).multi_processor_count)


def _block_v(v: int) -> int:
    return min(BLOCK_V, triton.next_power_of_2(v))


class CrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target, ignore_index):
        T, V = logits.shape
        assert logits.stride(1) == 1, "the vocab dim must be contiguous"
        n_valid = torch.empty((1,), dtype=torch.float32, device=logits.device)
        loss_rows = torch.empty((T,), dtype=torch.float32, device=logits.device)
        loss = torch.empty((), dtype=logits.dtype, device=logits.device)
        _count_valid[(1,)](target, n_valid, T, ignore_index, BLOCK=BLOCK_T)
        block = _block_v(V)
        _ce_fwd_grad[(_programs(T, logits.device),)](logits, logits.stride(0), target, loss_rows, n_valid, T, V,
                                                      ignore_index, BLOCK_V=block, REVERSE=REVERSE, EVICT=EVICT,
                                                      PREFETCH=PREFETCH,
                                                      num_warps=NUM_WARPS)
        _mean_loss[(1,)](loss_rows, n_valid, loss, T, BLOCK=BLOCK_T)
        ctx.save_for_backward(logits.detach())  # now holds the gradient of the mean loss
        ctx.block = block
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        (grad,) = ctx.saved_tensors
        T, V = grad.shape
        _scale_grad[(T,)](grad, grad.stride(0), grad_output, V, BLOCK_V=ctx.block, num_warps=NUM_WARPS)
        return grad, None, None


def cross_entropy(logits: torch.Tensor, target: torch.Tensor, ignore_index: int = -100) -> torch.Tensor:
    return CrossEntropy.apply(logits, target, ignore_index)
