# drill: cross-entropy
# expect: ignore-index
# says: never written
# blind round 11 (2026-12-02, seen half): Liger-like in-place fused kernel with early return.
import torch
import triton
import triton.language as tl


@triton.jit
def _ce_count(Y, N_ptr, n_rows, ignore_index, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    for s in range(0, n_rows, BLOCK):
        o = s + tl.arange(0, BLOCK)
        y = tl.load(Y + o, mask=o < n_rows, other=ignore_index)
        acc += tl.where(y != ignore_index, 1, 0)
    tl.store(N_ptr, tl.sum(acc, axis=0))


@triton.jit
def _ce_fwd_bwd(X_ptr, X_stride, Y_ptr, Loss_ptr, N_ptr, n_cols, ignore_index, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    y = tl.load(Y_ptr + pid)
    if y == ignore_index:
        tl.store(Loss_ptr + pid, 0.0)
        return
    X_ptr += pid * X_stride
    n = tl.load(N_ptr).to(tl.float32)
    m = float("-inf")
    d = 0.0
    for i in range(0, n_cols, BLOCK_SIZE):
        offs = i + tl.arange(0, BLOCK_SIZE)
        xb = tl.load(X_ptr + offs, mask=offs < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(xb, axis=0))
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(xb - m_new), axis=0)
        m = m_new
    lse = m + tl.log(d)
    x_y = tl.load(X_ptr + y).to(tl.float32)
    tl.store(Loss_ptr + pid, lse - x_y)
    for i in range(0, n_cols, BLOCK_SIZE):
        offs = i + tl.arange(0, BLOCK_SIZE)
        xb = tl.load(X_ptr + offs, mask=offs < n_cols, other=float("-inf")).to(tl.float32)
        p = tl.exp(xb - lse)
        p = tl.where(offs == y, p - 1.0, p) / n
        tl.store(X_ptr + offs, p.to(X_ptr.dtype.element_ty), mask=offs < n_cols)


@triton.jit
def _ce_reduce(Loss_ptr, N_ptr, Out_ptr, n_rows, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in range(0, n_rows, BLOCK):
        o = s + tl.arange(0, BLOCK)
        acc += tl.load(Loss_ptr + o, mask=o < n_rows, other=0.0)
    tl.store(Out_ptr, (tl.sum(acc, axis=0) / tl.load(N_ptr).to(tl.float32)).to(Out_ptr.dtype.element_ty))


@triton.jit
def _ce_scale(X_ptr, X_stride, G_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    X_ptr += pid * X_stride
    g = tl.load(G_ptr).to(tl.float32)
    for i in range(0, n_cols, BLOCK_SIZE):
        offs = i + tl.arange(0, BLOCK_SIZE)
        xb = tl.load(X_ptr + offs, mask=offs < n_cols, other=0.0).to(tl.float32)
        tl.store(X_ptr + offs, (xb * g).to(X_ptr.dtype.element_ty), mask=offs < n_cols)


class CrossEntropyInPlace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target, ignore_index):
        n_rows, n_cols = logits.shape
        assert logits.is_contiguous()
        target = target.contiguous()
        BLOCK_SIZE = min(8192, triton.next_power_of_2(n_cols))
        n_ptr = torch.empty((), dtype=torch.int32, device=logits.device)
        losses = torch.empty((n_rows,), dtype=torch.float32, device=logits.device)
        out = torch.empty((), dtype=logits.dtype, device=logits.device)
        _ce_count[(1,)](target, n_ptr, n_rows, ignore_index, BLOCK=1024)
        _ce_fwd_bwd[(n_rows,)](logits, logits.stride(0), target, losses, n_ptr, n_cols, ignore_index,
                               BLOCK_SIZE=BLOCK_SIZE, num_warps=16)
        _ce_reduce[(1,)](losses, n_ptr, out, n_rows, BLOCK=1024)
        ctx.save_for_backward(logits.detach())
        ctx.BLOCK_SIZE = BLOCK_SIZE
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (g,) = ctx.saved_tensors
        n_rows, n_cols = g.shape
        _ce_scale[(n_rows,)](g, g.stride(0), grad_output.contiguous(), n_cols, BLOCK_SIZE=ctx.BLOCK_SIZE,
                             num_warps=16)
        return g, None, None


def cross_entropy(logits, target, ignore_index=-100):
    return CrossEntropyInPlace.apply(logits, target, ignore_index)
