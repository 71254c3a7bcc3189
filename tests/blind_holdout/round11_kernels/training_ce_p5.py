import torch
import triton
import triton.language as tl


@triton.jit
def _n_valid_kernel(Tgt, Out, T, ignore_index, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, T, BLOCK):
        idx = start + tl.arange(0, BLOCK)
        t = tl.load(Tgt + idx, mask=idx < T, other=ignore_index)
        acc += tl.where(t == ignore_index, 0.0, 1.0)
    tl.store(Out, tl.sum(acc, axis=0))


@triton.jit
def _xent_fwd_kernel(Logits, row_stride, Tgt, RowLoss, NValid, V, ignore_index, BLOCK_V: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    base = Logits + pid * row_stride
    t = tl.load(Tgt + pid)
    valid = t != ignore_index
    m = -float("inf")
    d = 0.0
    for start in range(0, V, BLOCK_V):
        cols = start + tl.arange(0, BLOCK_V)
        x = tl.load(base + cols, mask=cols < V, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        d = d + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    lse = m + tl.log(d)
    t_safe = tl.where(valid, t, 0)
    x_t = tl.load(base + t_safe).to(tl.float32)
    tl.store(RowLoss + pid, tl.where(valid, lse - x_t, 0.0))
    scale = tl.where(valid, 1.0 / tl.load(NValid), 0.0)
    for start in range(0, V, BLOCK_V):
        cols = start + tl.arange(0, BLOCK_V)
        x = tl.load(base + cols, mask=cols < V, other=0.0).to(tl.float32)
        sm = tl.exp(x - lse)
        g = (sm - (cols == t_safe).to(tl.float32)) * scale
        tl.store(base + cols, g.to(Logits.dtype.element_ty), mask=cols < V)


@triton.jit
def _mean_kernel(RowLoss, NValid, Out, T, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, T, BLOCK):
        idx = start + tl.arange(0, BLOCK)
        acc += tl.load(RowLoss + idx, mask=idx < T, other=0.0)
    tl.store(Out, (tl.sum(acc, axis=0) / tl.load(NValid)).to(Out.dtype.element_ty))


@triton.jit
def _grad_scale_kernel(G, row_stride, Dout, V, BLOCK_V: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    base = G + pid * row_stride
    s = tl.load(Dout).to(tl.float32)
    for start in range(0, V, BLOCK_V):
        cols = start + tl.arange(0, BLOCK_V)
        g = tl.load(base + cols, mask=cols < V, other=0.0).to(tl.float32)
        tl.store(base + cols, (g * s).to(G.dtype.element_ty), mask=cols < V)


class FusedCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target, ignore_index):
        T, V = logits.shape
        assert logits.stride(1) == 1
        target = target.contiguous()
        dev = logits.device
        n_valid = torch.empty((1,), dtype=torch.float32, device=dev)
        row_loss = torch.empty((T,), dtype=torch.float32, device=dev)
        out = torch.empty((), dtype=logits.dtype, device=dev)
        BLOCK_V = min(2048, triton.next_power_of_2(V))
        _n_valid_kernel[(1,)](target, n_valid, T, ignore_index, BLOCK=512)
        _xent_fwd_kernel[(T,)](logits, logits.stride(0), target, row_loss, n_valid, V, ignore_index,
                               BLOCK_V=BLOCK_V, num_warps=8)
        _mean_kernel[(1,)](row_loss, n_valid, out, T, BLOCK=512)
        ctx.save_for_backward(logits.detach())
        ctx.BLOCK_V = BLOCK_V
        return out

    @staticmethod
    def backward(ctx, dout):
        (g,) = ctx.saved_tensors
        T, V = g.shape
        _grad_scale_kernel[(T,)](g, g.stride(0), dout.contiguous(), V, BLOCK_V=ctx.BLOCK_V, num_warps=8)
        return g, None, None


def cross_entropy(logits, target, ignore_index=-100):
    return FusedCrossEntropy.apply(logits, target, ignore_index)
