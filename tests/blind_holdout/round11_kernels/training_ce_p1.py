import torch
import triton
import triton.language as tl

BLOCK_V_MAX = 4096
BLOCK_T = 1024


@triton.jit
def _count_valid_kernel(Target, NValid, T, ignore_index, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    for off in range(0, T, BLOCK):
        rows = off + tl.arange(0, BLOCK)
        y = tl.load(Target + rows, mask=rows < T, other=0)
        acc += (y != ignore_index).to(tl.int32)
    tl.store(NValid, tl.sum(acc, axis=0).to(tl.float32))


@triton.jit
def _ce_fwd_kernel(X, stride, Target, Loss, NValid, V, ignore_index, BLOCK_V: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    X += row * stride
    y = tl.load(Target + row)
    if y == ignore_index:
        for off in range(0, V, BLOCK_V):
            cols = off + tl.arange(0, BLOCK_V)
            tl.store(X + cols, tl.zeros([BLOCK_V], dtype=tl.float32).to(X.dtype.element_ty), mask=cols < V)
        tl.store(Loss + row, 0.0)
    else:
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
            p = tl.exp(x - lse)
            g = tl.where(cols == y, p - 1.0, p) * inv_n
            tl.store(X + cols, g.to(X.dtype.element_ty), mask=cols < V)


@triton.jit
def _mean_kernel(Loss, NValid, Out, T, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, T, BLOCK):
        rows = off + tl.arange(0, BLOCK)
        acc += tl.load(Loss + rows, mask=rows < T, other=0.0)
    tl.store(Out, (tl.sum(acc, axis=0) / tl.load(NValid)).to(Out.dtype.element_ty))


@triton.jit
def _scale_kernel(G, stride, GradOut, V, BLOCK_V: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    G += row * stride
    g = tl.load(GradOut).to(tl.float32)
    for off in range(0, V, BLOCK_V):
        cols = off + tl.arange(0, BLOCK_V)
        x = tl.load(G + cols, mask=cols < V).to(tl.float32)
        tl.store(G + cols, (x * g).to(G.dtype.element_ty), mask=cols < V)


class CrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target, ignore_index):
        T, V = logits.shape
        assert logits.stride(1) == 1
        target = target.contiguous()
        n_valid = torch.empty((1,), dtype=torch.float32, device=logits.device)
        loss_rows = torch.empty((T,), dtype=torch.float32, device=logits.device)
        loss = torch.empty((), dtype=logits.dtype, device=logits.device)
        _count_valid_kernel[(1,)](target, n_valid, T, ignore_index, BLOCK=BLOCK_T)
        block_v = min(BLOCK_V_MAX, triton.next_power_of_2(V))
        _ce_fwd_kernel[(T,)](logits, logits.stride(0), target, loss_rows, n_valid, V, ignore_index,
                             BLOCK_V=block_v, num_warps=8)
        _mean_kernel[(1,)](loss_rows, n_valid, loss, T, BLOCK=BLOCK_T)
        ctx.save_for_backward(logits.detach())
        ctx.block_v = block_v
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        (grad,) = ctx.saved_tensors
        T, V = grad.shape
        _scale_kernel[(T,)](grad, grad.stride(0), grad_output.contiguous(), V, BLOCK_V=ctx.block_v, num_warps=8)
        return grad, None, None


def cross_entropy(logits, target, ignore_index=-100):
    return CrossEntropy.apply(logits, target, ignore_index)
