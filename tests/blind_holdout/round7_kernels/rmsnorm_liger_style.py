# drill: rmsnorm
# RMSNorm in the style of Liger-Kernel's ops/rms_norm.py: calculate_settings(), row strides for every tensor, a
# casting_mode constexpr (here "gemma": everything in float32, cast once at the store), offset for (offset + W),
# and RSTD kept as a side output for a backward.
import torch
import triton
import triton.language as tl

_CASTING_MODE_NONE: tl.constexpr = tl.constexpr(-1)
_CASTING_MODE_LLAMA: tl.constexpr = tl.constexpr(0)
_CASTING_MODE_GEMMA: tl.constexpr = tl.constexpr(1)


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


@triton.jit
def _rms_norm_forward_kernel(Y_ptr, Y_row_stride, X_ptr, X_row_stride, W_ptr, W_row_stride, RSTD_ptr,
                             RSTD_row_stride, n_cols, eps, offset, casting_mode: tl.constexpr,
                             BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0).to(tl.int64)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    Y_ptr += row_idx * Y_row_stride
    X_ptr += row_idx * X_row_stride
    RSTD_ptr += row_idx * RSTD_row_stride

    X_row = tl.load(X_ptr + col_offsets, mask=mask, other=0)
    X_row_dtype = X_row.dtype
    W_row = tl.load(W_ptr + col_offsets, mask=mask, other=0)

    if casting_mode == _CASTING_MODE_GEMMA:
        W_row = W_row.to(tl.float32)
        X_row = X_row.to(tl.float32)
    elif casting_mode == _CASTING_MODE_LLAMA:
        X_row = X_row.to(tl.float32)

    mean_square = tl.sum(X_row * X_row, axis=0) / n_cols
    rstd = tl.rsqrt(mean_square + eps)
    tl.store(RSTD_ptr, rstd)

    X_row = X_row * rstd
    if casting_mode == _CASTING_MODE_LLAMA:
        X_row = X_row.to(X_row_dtype)
    Y_row = X_row * (offset + W_row)
    if casting_mode == _CASTING_MODE_GEMMA:
        Y_row = Y_row.to(X_row_dtype)
    tl.store(Y_ptr + col_offsets, Y_row, mask=mask)


def rms_norm_forward(X, W, eps, offset=0.0, casting_mode="gemma"):
    shape = X.shape
    dim = shape[-1]
    X = X.view(-1, dim)
    n_rows, n_cols = X.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    RSTD = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    mode = {"llama": _CASTING_MODE_LLAMA.value, "gemma": _CASTING_MODE_GEMMA.value, "none": _CASTING_MODE_NONE.value}
    _rms_norm_forward_kernel[(n_rows,)](Y, Y.stride(0), X, X.stride(0), W, W.stride(0), RSTD, RSTD.stride(0),
                                        n_cols, eps, offset, casting_mode=mode[casting_mode], BLOCK_SIZE=BLOCK_SIZE,
                                        num_warps=num_warps)
    return Y.view(*shape), X, RSTD


def rmsnorm(x, weight, eps=1e-6):
    y, _, _ = rms_norm_forward(x, weight, eps)
    return y
