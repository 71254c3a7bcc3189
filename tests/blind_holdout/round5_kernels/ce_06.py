# drill: cross-entropy
import torch
import triton
import triton.language as tl


@triton.jit
def ce_fwd_kernel(logits_ptr, target_ptr, lse_ptr, loss_row_ptr, V, stride_row, ignore_index,
                  BLOCK_V: tl.constexpr):
    row = tl.program_id(0)
    base = logits_ptr + row.to(tl.int64) * stride_row
    t = tl.load(target_ptr + row)
    # one streaming pass over the vocabulary: per-lane running max and sum, merged at the end
    m_vec = tl.full([BLOCK_V], float("-inf"), tl.float32)
    s_vec = tl.zeros([BLOCK_V], dtype=tl.float32)
    for v0 in range(0, V, BLOCK_V):
        cols = v0 + tl.arange(0, BLOCK_V)
        x = tl.load(base + cols, mask=cols < V, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m_vec, x)
        s_vec = s_vec * tl.exp(m_vec - m_new) + tl.exp(x - m_new)
        s_vec = tl.where(m_new == float("-inf"), 0.0, s_vec)
        m_vec = m_new
    m = tl.max(m_vec, axis=0)
    s = tl.sum(s_vec * tl.exp(m_vec - m), axis=0)
    lse = m + tl.log(s)
    valid = t != ignore_index
    t_safe = tl.where(valid, t, 0)
    x_t = tl.load(logits_ptr + t_safe).to(tl.float32)
    tl.store(lse_ptr + row, lse)
    tl.store(loss_row_ptr + row, tl.where(valid, lse - x_t, 0.0))


@triton.jit
def ce_reduce_kernel(loss_row_ptr, target_ptr, loss_ptr, n_valid_ptr, T, ignore_index, BLOCK_T: tl.constexpr):
    total = tl.zeros([BLOCK_T], dtype=tl.float32)
    count = tl.zeros([BLOCK_T], dtype=tl.float32)
    for t0 in range(0, T, BLOCK_T):
        rows = t0 + tl.arange(0, BLOCK_T)
        ok = rows < T
        total += tl.load(loss_row_ptr + rows, mask=ok, other=0.0)
        tg = tl.load(target_ptr + rows, mask=ok, other=ignore_index)
        count += tl.where(tg != ignore_index, 1.0, 0.0)
    n_valid = tl.sum(count, axis=0)
    tl.store(n_valid_ptr, n_valid)
    tl.store(loss_ptr, (tl.sum(total, axis=0) / n_valid).to(loss_ptr.dtype.element_ty))


@triton.jit
def ce_bwd_kernel(logits_ptr, target_ptr, lse_ptr, n_valid_ptr, grad_out_ptr, dlogits_ptr, V,
                  stride_row, stride_drow, ignore_index, BLOCK_V: tl.constexpr):
    row = tl.program_id(0)
    t = tl.load(target_ptr + row)
    lse = tl.load(lse_ptr + row)
    scale = tl.load(grad_out_ptr).to(tl.float32) / tl.load(n_valid_ptr)
    scale = tl.where(t != ignore_index, scale, 0.0)
    for v0 in range(0, V, BLOCK_V):
        cols = v0 + tl.arange(0, BLOCK_V)
        ok = cols < V
        x = tl.load(logits_ptr + row.to(tl.int64) * stride_row + cols, mask=ok, other=0.0).to(tl.float32)
        g = tl.exp(x - lse) - tl.where(cols == t, 1.0, 0.0)
        tl.store(dlogits_ptr + row.to(tl.int64) * stride_drow + cols, (g * scale).to(dlogits_ptr.dtype.element_ty),
                 mask=ok)


class CrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target, ignore_index):
        T, V = logits.shape
        assert logits.stride(1) == 1
        BLOCK_V = min(4096, triton.next_power_of_2(V))
        lse = torch.empty((T,), dtype=torch.float32, device=logits.device)
        loss_rows = torch.empty((T,), dtype=torch.float32, device=logits.device)
        n_valid = torch.empty((1,), dtype=torch.float32, device=logits.device)
        loss = torch.empty((), dtype=logits.dtype, device=logits.device)
        ce_fwd_kernel[(T,)](logits, target, lse, loss_rows, V, logits.stride(0), ignore_index, BLOCK_V=BLOCK_V)
        ce_reduce_kernel[(1,)](loss_rows, target, loss, n_valid, T, ignore_index, BLOCK_T=1024)
        ctx.save_for_backward(logits, target, lse, n_valid)
        ctx.ignore_index = ignore_index
        return loss

    @staticmethod
    def backward(ctx, grad_loss):
        logits, target, lse, n_valid = ctx.saved_tensors
        T, V = logits.shape
        BLOCK_V = min(4096, triton.next_power_of_2(V))
        dlogits = torch.empty((T, V), dtype=logits.dtype, device=logits.device)
        ce_bwd_kernel[(T,)](logits, target, lse, n_valid, grad_loss.contiguous(), dlogits, V, logits.stride(0),
                            dlogits.stride(0), ctx.ignore_index, BLOCK_V=BLOCK_V)
        return dlogits, None, None


def cross_entropy(logits: torch.Tensor, target: torch.Tensor, ignore_index: int = -100) -> torch.Tensor:
    return CrossEntropy.apply(logits, target, ignore_index)
