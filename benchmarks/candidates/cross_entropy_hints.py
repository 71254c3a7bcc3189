# drill: cross-entropy
"""Control for issue 21's speed candidates (benchmark file, not a solution): the shipped reference's kernel
(solutions/cross_entropy.py: one program per row, online log-sum-exp, then the gradient over the logits) with two
switches. EVICT: the first pass's loads ask L2 to keep their lines (evict_last), the gradient pass's loads and
stores to drop theirs first (evict_first). REVERSE: the gradient pass walks the row from its end, where the first
pass ended, so the most recently read blocks (the likeliest still in L2) are re-read first. KEEP (with EVICT): only
the row's last KEEP blocks are read evict_last, the head evict_first (REVERSE re-reads the tail first: the head of
a 256 KB row is evicted before its re-read anyway, and keeping it only crowds out the tails). STAGES > 1 pipelines
the first pass's loads (tl.range num_stages). BLOCK_V and NUM_WARPS as the reference's. With every switch off it is
the reference.

Measured (H200, torch 2.11 / triton 3.6, 2026-12-01, docs/training.md "L2 batch 1" and "L2 batch 2"): REVERSE + EVICT
at 8192 x 16 warps 1399 µs in one run and 1477 in the next, at 8192 x 8 warps 1414 µs (the reference: 1507-1508),
1.84-1.85 x torch.compile: faster than the reference, short of the 2 x goal.
"""
import torch
import triton
import triton.language as tl

BLOCK_V = 8192   # vocab elements per step, a power of two capped by next_power_of_2(V): see docs/training.md
NUM_WARPS = 16  # H200, (8192, 128256) bf16: 8192 x 16 warps 1507 µs, Liger's 32768 x 32 1524 µs
BLOCK_T = 1024   # targets per step of the counting and summing kernels
EVICT = False
REVERSE = False
KEEP = 0         # with EVICT: 0 keeps (evict_last) every first-pass block; k > 0 only the row's last k blocks
STAGES = 1       # > 1: the first pass's loops as tl.range(..., num_stages=STAGES) (software-pipelined loads)


@triton.jit
def _count_valid(Target, NValid, T, ignore_index, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    for off in range(0, T, BLOCK):
        rows = off + tl.arange(0, BLOCK)
        y = tl.load(Target + rows, mask=rows < T, other=ignore_index)
        acc += (y != ignore_index).to(tl.int32)
    tl.store(NValid, tl.sum(acc, axis=0).to(tl.float32))


@triton.jit
def _ce_fwd_grad(X, stride, Target, Loss, NValid, V, ignore_index, BLOCK_V: tl.constexpr, EVICT: tl.constexpr,
                 REVERSE: tl.constexpr, KEEP: tl.constexpr, STAGES: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    X += row * stride
    y = tl.load(Target + row)
    if y == ignore_index:  # no loss and a zero gradient for this row
        for off in range(0, V, BLOCK_V):
            cols = off + tl.arange(0, BLOCK_V)
            tl.store(X + cols, tl.zeros([BLOCK_V], dtype=tl.float32).to(X.dtype.element_ty), mask=cols < V)
        tl.store(Loss + row, 0.0)
    else:
        m = float("-inf")
        d = 0.0
        nblk = tl.cdiv(V, BLOCK_V)
        if EVICT and KEEP > 0:  # blocks read before the kept tail
            head = tl.maximum(nblk - KEEP, 0)
        else:
            head = nblk * 0
        for i in tl.range(0, head, num_stages=STAGES):  # the head: not re-read from L2 anyway, so evict_first
            cols = i * BLOCK_V + tl.arange(0, BLOCK_V)
            x = tl.load(X + cols, mask=cols < V, other=float("-inf"), eviction_policy="evict_first").to(tl.float32)
            m_new = tl.maximum(m, tl.max(x, axis=0))
            d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
            m = m_new
        for i in tl.range(head, nblk, num_stages=STAGES):
            cols = i * BLOCK_V + tl.arange(0, BLOCK_V)
            if EVICT:
                x = tl.load(X + cols, mask=cols < V, other=float("-inf"), eviction_policy="evict_last")
            else:
                x = tl.load(X + cols, mask=cols < V, other=float("-inf"))
            x = x.to(tl.float32)
            m_new = tl.maximum(m, tl.max(x, axis=0))
            d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
            m = m_new
        lse = m + tl.log(d)
        x_y = tl.load(X + y).to(tl.float32)
        tl.store(Loss + row, lse - x_y)
        inv_n = 1.0 / tl.load(NValid)
        for i in range(0, nblk):
            if REVERSE:
                cols = (nblk - 1 - i) * BLOCK_V + tl.arange(0, BLOCK_V)
            else:
                cols = i * BLOCK_V + tl.arange(0, BLOCK_V)
            if EVICT:
                x = tl.load(X + cols, mask=cols < V, other=float("-inf"), eviction_policy="evict_first")
            else:
                x = tl.load(X + cols, mask=cols < V, other=float("-inf"))
            g = tl.exp(x.to(tl.float32) - lse)
            g = tl.where(cols == y, g - 1.0, g) * inv_n
            if EVICT:
                tl.store(X + cols, g.to(X.dtype.element_ty), mask=cols < V, eviction_policy="evict_first")
            else:
                tl.store(X + cols, g.to(X.dtype.element_ty), mask=cols < V)


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
        _ce_fwd_grad[(T,)](logits, logits.stride(0), target, loss_rows, n_valid, V, ignore_index,
                           BLOCK_V=block, EVICT=EVICT, REVERSE=REVERSE, KEEP=KEEP, STAGES=STAGES,
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
