# drill: cross-entropy
# expect: memory
# says: is allocated besides the gradient
"""Right loss, right gradient, but the forward keeps the softmax as a (T, V) float32 tensor for the backward: the
memory a fused cross-entropy exists to save."""
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
def _softmax(X, sx, P, Lse, V, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    lse = tl.load(Lse + r)
    for off in range(0, V, BLOCK):
        c = off + tl.arange(0, BLOCK)
        x = tl.load(X + r.to(tl.int64) * sx + c, mask=c < V, other=0.0).to(tl.float32)
        tl.store(P + r.to(tl.int64) * V + c, tl.exp(x - lse), mask=c < V)


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
            p = tl.load(X + r.to(tl.int64) * sx + c, mask=c < V, other=0.0)
            g = (p - tl.where(c == y, 1.0, 0.0)) * scale
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
        probs = torch.empty((T, V), dtype=torch.float32, device=dev)  # a (T, V) float32 copy: 4.2 GB at 8192 x 128256
        _softmax[(T,)](logits, logits.stride(0), probs, lse, V, BLOCK=BLOCK)
        ctx.save_for_backward(probs, target, lse, n)
        ctx.ignore_index, ctx.BLOCK, ctx.dtype = ignore_index, BLOCK, logits.dtype
        return out

    @staticmethod
    def backward(ctx, dy):
        logits, target, lse, n = ctx.saved_tensors  # logits: the saved softmax
        T, V = logits.shape
        grad = torch.empty((T, V), dtype=ctx.dtype, device=logits.device)
        _backward[(T,)](logits, logits.stride(0), grad, grad.stride(0), target, lse, n, dy, V, ctx.ignore_index,
                        BLOCK=ctx.BLOCK)
        return grad, None, None


def cross_entropy(logits, target, ignore_index=-100):
    return _CE.apply(logits, target, ignore_index)
