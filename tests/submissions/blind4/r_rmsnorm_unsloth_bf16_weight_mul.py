# drill: rmsnorm
# expect: pass
"""Unsloth style RMSNorm: the normalised row is cast to the weight's dtype and multiplied in that dtype on purpose
("exact copy from HF"), so on the bfloat16 probe the multiply is bf16 arithmetic. A GPU computes it (rounded to
bf16); the interpreter computed on the raw 16-bit patterns, and the grade stopped (issue 17, item 2)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _rms_layernorm_forward(Y, Y_row_stride, X, X_row_stride, W, W_row_stride, r, r_row_stride, n_cols, eps,
                           BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    Y += row_idx * Y_row_stride
    X += row_idx * X_row_stride
    r += row_idx * r_row_stride
    X_row = tl.load(X + col_offsets, mask=mask, other=0).to(tl.float32)
    W_row = tl.load(W + col_offsets, mask=mask, other=0)
    row_var = tl.sum(X_row * X_row, axis=0) / n_cols
    inv_var = tl.math.rsqrt(row_var + eps)
    tl.store(r, inv_var)
    normed = X_row * inv_var
    normed = normed.to(W_row.dtype)
    output = normed * W_row
    tl.store(Y + col_offsets, output, mask=mask)


def rmsnorm(x, weight, eps=1e-6):
    M, N = x.shape
    Y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    r = torch.empty(M, dtype=torch.float32, device=x.device)
    _rms_layernorm_forward[(M,)](Y, Y.stride(0), x, x.stride(0), weight, weight.stride(0), r, r.stride(0), N, eps,
                                 BLOCK_SIZE=triton.next_power_of_2(N))
    return Y
