# drill: cross-entropy
"""Fused cross-entropy forward AND backward in Triton: the mean loss over the rows that count, and logits.grad.

`cross_entropy(logits, target, ignore_index=-100)` takes logits (T, V) float32 (bfloat16/float16 on a GPU) and
target (T,) int64, and returns the mean of lse(x_r) - x_r[target_r] over the rows whose target is not
ignore_index, as a 0-dim tensor of the logits' dtype, exactly as F.cross_entropy does (an all-ignored batch: NaN).
It is differentiable: `CrossEntropy` is a torch.autograd.Function. The grader calls loss = cross_entropy(...), then
loss.backward(dy) with a dy that is not 1, and checks the loss and logits.grad against float64 autograd. It also
watches memory: no (T, V) buffer beyond the gradient (a float32 copy of the logits is 4 bytes x 8192 x 128256 =
4.2 GB at Llama 3's vocabulary). This file writes the gradient over the logits in the forward, as Liger-Kernel
does; recomputing it in the backward from a saved per-row lse also passes. Four holes:
- lse:    the online log-sum-exp over the vocab blocks: a running max m and a running sum d of exp(x - m);
- gather: the target logit of the row;
- ignore: n_valid (the rows that count) and what an ignored row gets;
- grad:   (softmax - one_hot) / n_valid, written over the row, then times the loss's grad_output in the backward.
Graded with V = 1000, 3001, 32011 (no block fits exactly), T from 1, ignored rows in most batches, an all-ignored
batch, ignore_index=-1, and logits of magnitude ~100. Stuck? `drill hint cross-entropy`.
"""
import torch
import triton
import triton.language as tl


BLOCK_V = 8192   # vocab elements per step, a power of two capped by next_power_of_2(V)
NUM_WARPS = 16
BLOCK_T = 1024   # targets per step of the counting and summing kernels


@triton.jit
def _count_valid(Target, NValid, T, ignore_index, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    for off in range(0, T, BLOCK):
        rows = off + tl.arange(0, BLOCK)
        y = tl.load(Target + rows, mask=rows < T, other=ignore_index)
        acc += (rows < T).to(tl.int32)
    tl.store(NValid, tl.sum(acc, axis=0).to(tl.float32))


@triton.jit
def _ce_fwd_grad(X, stride, Target, Loss, NValid, V, ignore_index, BLOCK_V: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    X += row * stride
    y = tl.load(Target + row)
    if y == ignore_index:
        tl.store(Loss + row, 0.0)
        for off in range(0, V, BLOCK_V):
            cols = off + tl.arange(0, BLOCK_V)
            tl.store(X + cols, tl.zeros([BLOCK_V], dtype=X.dtype.element_ty), mask=cols < V)
    else:
        # online log-sum-exp: m is the running max, d the running sum of exp(x - m)
        m = float("-inf")
        d = 0.0
        for off in range(0, V, BLOCK_V):
            cols = off + tl.arange(0, BLOCK_V)
            x = tl.load(X + cols, mask=cols < V, other=float("-inf")).to(tl.float32)
            m_new = tl.maximum(m, tl.max(x, axis=0))
            d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
            m = m_new
        lse = m + tl.log(d)
        x_y = tl.load(X + y).to(tl.float32)
        tl.store(Loss + row, lse - x_y)
        inv_n = 1.0 / tl.load(NValid)
        for off in range(0, V, BLOCK_V):
            cols = off + tl.arange(0, BLOCK_V)
            x = tl.load(X + cols, mask=cols < V, other=float("-inf")).to(tl.float32)
            g = (tl.exp(x - lse) - tl.where(cols == y, 1.0, 0.0)) * inv_n
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
    if g != 1.0:  # the usual loss.backward(): nothing to do (the grader's dy is not 1)
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
                           BLOCK_V=block, num_warps=NUM_WARPS)
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
