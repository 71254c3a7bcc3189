# drill: rmsnorm
# expect: pass
# style: Liger-kernel _rms_norm_forward_kernel: row pointer += row_idx * stride, BLOCK_SIZE = next_power_of_2(n_cols), fp32 upcast, cast back to the input dtype
# why: mean of squares divides by n_cols (not BLOCK_SIZE), computed in float32, rsqrt, times weight, stored in x's dtype (works for bf16 too).
import torch
import triton
import triton.language as tl


@triton.jit
def _rms_norm_forward_kernel(Y_ptr, Y_row_stride, X_ptr, X_row_stride, W_ptr, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    Y_ptr += row_idx * Y_row_stride
    X_ptr += row_idx * X_row_stride
    X_row = tl.load(X_ptr + col_offsets, mask=mask, other=0)
    X_row_dtype = X_row.dtype
    W_row = tl.load(W_ptr + col_offsets, mask=mask, other=0)
    X_row = X_row.to(tl.float32)
    mean_square = tl.sum(X_row * X_row, axis=0) / n_cols
    rstd = tl.math.rsqrt(mean_square + eps)
    X_row = X_row * rstd
    Y_row = X_row * W_row.to(tl.float32)
    tl.store(Y_ptr + col_offsets, Y_row.to(X_row_dtype), mask=mask)


def calculate_settings(n):
    BLOCK_SIZE = triton.next_power_of_2(n)
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


def rmsnorm(x, weight, eps=1e-6):
    shape = x.shape
    dim = shape[-1]
    X = x.view(-1, dim)
    n_rows, n_cols = X.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    _rms_norm_forward_kernel[(n_rows,)](Y, Y.stride(0), X, X.stride(0), weight, n_cols, eps,
                                        BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return Y.view(*shape)
