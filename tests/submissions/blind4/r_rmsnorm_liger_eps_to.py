# drill: rmsnorm
# expect: pass
"""Liger-Kernel style RMSNorm forward: `eps.to(tl.float32)` on a float kernel argument, which the compiler passes as
an fp32 scalar; the interpreter passed the Python float ("'float' object has no attribute 'to'", issue 17, item 2).
Also stores rstd, casts back to x's dtype before multiplying by the weight, as Liger does."""
import torch
import triton
import triton.language as tl


@triton.jit
def _rms_norm_forward_kernel(Y_ptr, Y_row_stride, X_ptr, X_row_stride, W_ptr, RSTD_ptr, n_cols, eps,
                             BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0).to(tl.int64)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    X_row = tl.load(X_ptr + row_idx * X_row_stride + col_offsets, mask=mask, other=0)
    X_row_dtype = X_row.dtype
    W_row = tl.load(W_ptr + col_offsets, mask=mask, other=0)
    X_row = X_row.to(tl.float32)
    mean_square = tl.sum(X_row * X_row, axis=0) / n_cols
    rstd = tl.rsqrt(mean_square + eps.to(tl.float32))
    tl.store(RSTD_ptr + row_idx, rstd)
    X_row = X_row * rstd
    X_row = X_row.to(X_row_dtype)
    Y_row = X_row * W_row
    tl.store(Y_ptr + row_idx * Y_row_stride + col_offsets, Y_row, mask=mask)


def rmsnorm(x, weight, eps=1e-6):
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    rstd = torch.empty(M, dtype=torch.float32, device=x.device)
    _rms_norm_forward_kernel[(M,)](y, y.stride(0), x, x.stride(0), weight, rstd, N, eps,
                                   BLOCK_SIZE=triton.next_power_of_2(N))
    return y
