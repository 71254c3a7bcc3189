# drill: cross-entropy
# expect: ignore-index
# says: on the all ignored inputs
"""All-ignored batch: the backward scales by dy / n_valid = dy / 0, and inf x 0 is NaN where the gradient is 0.
Otherwise right: several rows per program: a [ROWS, BLOCK_V] tile, one running max and sum per row, the unscaled gradient
softmax - one_hot written over the logits in the forward; the backward multiplies it by dy / n_valid (always, even
when dy is 1). n_valid is counted with one tl.atomic_add per program; a one-program kernel takes the mean."""
import torch
import triton
import triton.language as tl

ROWS = 4


@triton.jit
def _count(Target, N, T, ignore_index, ROWS: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    y = tl.load(Target + r, mask=r < T, other=ignore_index)
    tl.atomic_add(N, tl.sum((y != ignore_index).to(tl.float32), axis=0))


@triton.jit
def _fwd(X, sx, Target, Loss, T, V, ignore_index, ROWS: tl.constexpr, BLOCK_V: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    rmask = r < T
    y = tl.load(Target + r, mask=rmask, other=ignore_index)
    keep = (y != ignore_index) & rmask
    base = X + r.to(tl.int64)[:, None] * sx
    m = tl.full([ROWS], float("-inf"), tl.float32)
    d = tl.zeros([ROWS], tl.float32)
    xt = tl.zeros([ROWS], tl.float32)
    for off in range(0, V, BLOCK_V):
        c = off + tl.arange(0, BLOCK_V)
        mask = rmask[:, None] & (c[None, :] < V)
        x = tl.load(base + c[None, :], mask=mask, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=1))
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        d = d * tl.exp(m - m_safe) + tl.sum(tl.exp(x - m_safe[:, None]), axis=1)
        m = m_new
        xt += tl.sum(tl.where(c[None, :] == y[:, None], x, 0.0), axis=1)  # the target logit, found in its block
    lse = m + tl.log(d)
    tl.store(Loss + r, tl.where(keep, lse - xt, 0.0), mask=rmask)
    for off in range(0, V, BLOCK_V):
        c = off + tl.arange(0, BLOCK_V)
        mask = rmask[:, None] & (c[None, :] < V)
        x = tl.load(base + c[None, :], mask=mask, other=0.0).to(tl.float32)
        g = tl.exp(x - lse[:, None]) - tl.where(c[None, :] == y[:, None], 1.0, 0.0)
        g = tl.where(keep[:, None], g, 0.0)
        tl.store(base + c[None, :], g.to(X.dtype.element_ty), mask=mask)


@triton.jit
def _mean(Loss, N, Out, T, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.float32)
    for off in range(0, T, BLOCK):
        i = off + tl.arange(0, BLOCK)
        acc += tl.load(Loss + i, mask=i < T, other=0.0)
    tl.store(Out, (tl.sum(acc, axis=0) / tl.load(N)).to(Out.dtype.element_ty))


@triton.jit
def _bwd(G, sg, N, Dy, T, V, ROWS: tl.constexpr, BLOCK_V: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    s = tl.load(Dy).to(tl.float32) / tl.load(N)
    for off in range(0, V, BLOCK_V):
        c = off + tl.arange(0, BLOCK_V)
        mask = (r[:, None] < T) & (c[None, :] < V)
        p = G + r.to(tl.int64)[:, None] * sg + c[None, :]
        tl.store(p, (tl.load(p, mask=mask).to(tl.float32) * s).to(G.dtype.element_ty), mask=mask)


class XEnt(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target, ignore_index):
        T, V = logits.shape
        n = torch.zeros(1, dtype=torch.float32, device=logits.device)
        rows = torch.empty(T, dtype=torch.float32, device=logits.device)
        out = torch.empty((), dtype=logits.dtype, device=logits.device)
        grid = (triton.cdiv(T, ROWS),)
        bv = min(2048, triton.next_power_of_2(V))
        _count[grid](target, n, T, ignore_index, ROWS=ROWS)
        _fwd[grid](logits, logits.stride(0), target, rows, T, V, ignore_index, ROWS=ROWS, BLOCK_V=bv)
        _mean[(1,)](rows, n, out, T, BLOCK=128)
        ctx.save_for_backward(logits.detach(), n)
        ctx.bv = bv
        return out

    @staticmethod
    def backward(ctx, dy):
        g, n = ctx.saved_tensors
        T, V = g.shape
        _bwd[(triton.cdiv(T, ROWS),)](g, g.stride(0), n, dy, T, V, ROWS=ROWS, BLOCK_V=ctx.bv)
        return g, None, None


def cross_entropy(logits, target, ignore_index=-100):
    return XEnt.apply(logits, target, ignore_index)
