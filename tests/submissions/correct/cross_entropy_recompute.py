# drill: cross-entropy
# expect: pass
"""Recompute in the backward: the forward keeps one float32 lse per row and leaves the logits alone; the backward
allocates the gradient and writes dy * (exp(x - lse) - one_hot) / n_valid into it. One program per row; the loss
is summed with tl.atomic_add of each row's loss / n_valid into a float32 scalar (0 / 0 first for an all-ignored
batch: every row adds 0 to NaN)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _n_valid(Target, N, T, ignore_index, BLOCK: tl.constexpr):
    rows = tl.arange(0, BLOCK)
    count = 0.0
    for off in range(0, T, BLOCK):
        y = tl.load(Target + off + rows, mask=off + rows < T, other=ignore_index)
        count += tl.sum(tl.where(y != ignore_index, 1.0, 0.0), axis=0)
    tl.store(N, count)


@triton.jit
def _forward(X, sx, Target, Lse, N, Acc, V, ignore_index, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    y = tl.load(Target + r)
    if y != ignore_index:
        base = X + r.to(tl.int64) * sx
        m = tl.full([BLOCK], float("-inf"), tl.float32)  # per lane: max and sum, merged at the end
        s = tl.zeros([BLOCK], tl.float32)
        for off in range(0, V, BLOCK):
            c = off + tl.arange(0, BLOCK)
            x = tl.load(base + c, mask=c < V, other=float("-inf")).to(tl.float32)
            m_new = tl.maximum(m, x)
            s = s * tl.exp(tl.where(m_new == float("-inf"), 0.0, m - m_new)) + \
                tl.where(x == float("-inf"), 0.0, tl.exp(x - m_new))
            m = m_new
        mx = tl.max(m, axis=0)
        lse = mx + tl.log(tl.sum(s * tl.exp(m - mx), axis=0))
        tl.store(Lse + r, lse)
        xt = tl.load(base + y).to(tl.float32)
        tl.atomic_add(Acc, (lse - xt) / tl.load(N))


@triton.jit
def _init_acc(Acc, N):
    n = tl.load(N)
    tl.store(Acc, tl.where(n == 0.0, float("nan"), 0.0))


@triton.jit
def _finish(Acc, Out):
    tl.store(Out, tl.load(Acc).to(Out.dtype.element_ty))


@triton.jit
def _backward(X, sx, G, sg, Target, Lse, N, Dy, V, ignore_index, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    y = tl.load(Target + r)
    scale = tl.load(Dy).to(tl.float32) / tl.load(N)
    lse = tl.load(Lse + r)
    for off in range(0, V, BLOCK):
        c = off + tl.arange(0, BLOCK)
        if y == ignore_index:
            g = tl.zeros([BLOCK], tl.float32)
        else:
            x = tl.load(X + r.to(tl.int64) * sx + c, mask=c < V, other=0.0).to(tl.float32)
            g = (tl.exp(x - lse) - tl.where(c == y, 1.0, 0.0)) * scale
        tl.store(G + r.to(tl.int64) * sg + c, g.to(G.dtype.element_ty), mask=c < V)


class _CE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target, ignore_index):
        T, V = logits.shape
        dev = logits.device
        lse = torch.empty(T, dtype=torch.float32, device=dev)
        n = torch.empty(1, dtype=torch.float32, device=dev)
        acc = torch.empty(1, dtype=torch.float32, device=dev)
        out = torch.empty((), dtype=logits.dtype, device=dev)
        BLOCK = min(4096, triton.next_power_of_2(V))
        _n_valid[(1,)](target, n, T, ignore_index, BLOCK=256)
        _init_acc[(1,)](acc, n)
        _forward[(T,)](logits, logits.stride(0), target, lse, n, acc, V, ignore_index, BLOCK=BLOCK)
        _finish[(1,)](acc, out)
        ctx.save_for_backward(logits, target, lse, n)
        ctx.ignore_index, ctx.BLOCK = ignore_index, BLOCK
        return out

    @staticmethod
    def backward(ctx, dy):
        logits, target, lse, n = ctx.saved_tensors
        T, V = logits.shape
        grad = torch.empty_like(logits)
        _backward[(T,)](logits, logits.stride(0), grad, grad.stride(0), target, lse, n, dy, V, ctx.ignore_index,
                        BLOCK=ctx.BLOCK)
        return grad, None, None


def cross_entropy(logits, target, ignore_index=-100):
    return _CE.apply(logits, target, ignore_index)
