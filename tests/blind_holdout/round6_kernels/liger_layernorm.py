# drill: layernorm
# Liger-Kernel style LayerNorm: forward stores Mean and RSTD per row; backward gives each program a block of rows
# (rows_per_program), accumulates dW/dB in fp32 and writes one partial row per program; a small kernel sums them.
import math

import torch
import triton
import triton.language as tl


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
def _layer_norm_forward_kernel(
    Y_ptr, Y_row_stride, X_ptr, X_row_stride, W_ptr, W_row_stride, B_ptr, B_row_stride,
    Mean_ptr, Mean_row_stride, RSTD_ptr, RSTD_row_stride, n_cols, eps, BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0).to(tl.int64)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    Y_ptr += row_idx * Y_row_stride
    X_ptr += row_idx * X_row_stride
    Mean_ptr += row_idx * Mean_row_stride
    RSTD_ptr += row_idx * RSTD_row_stride

    X_row = tl.load(X_ptr + col_offsets, mask=mask, other=0).to(tl.float32)
    W_row = tl.load(W_ptr + col_offsets, mask=mask, other=0).to(tl.float32)
    B_row = tl.load(B_ptr + col_offsets, mask=mask, other=0).to(tl.float32)

    mean = tl.sum(X_row, axis=0) / n_cols
    Xmm = tl.where(mask, X_row - mean, 0)
    var = tl.sum(Xmm * Xmm, axis=0) / n_cols
    rstd = tl.rsqrt(var + eps)

    tl.store(Mean_ptr, mean)
    tl.store(RSTD_ptr, rstd)

    Y_row = Xmm * rstd * W_row + B_row
    tl.store(Y_ptr + col_offsets, Y_row.to(Y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _layer_norm_backward_kernel(
    X_ptr, W_ptr, Mean_ptr, RSTD_ptr, DX_ptr, DW_ptr, DB_ptr, DY_ptr,
    stride_x, stride_dx, stride_dw, stride_db, stride_dy,
    n_rows, n_cols, rows_per_program: tl.constexpr, BLOCK_SIZE: tl.constexpr,
):
    row_block_id = tl.program_id(0).to(tl.int64)
    row_start = row_block_id * rows_per_program
    row_end = min((row_block_id + 1) * rows_per_program, n_rows)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols

    dW_row = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    db_row = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)

    X_ptr += row_start * stride_x
    Mean_ptr += row_start
    RSTD_ptr += row_start
    DX_ptr += row_start * stride_dx
    DY_ptr += row_start * stride_dy

    w = tl.load(W_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    for _ in range(row_start, row_end):
        x = tl.load(X_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(DY_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        mean = tl.load(Mean_ptr)
        rstd = tl.load(RSTD_ptr)

        x_hat = (x - mean) * rstd
        wdy = w * dy
        c1 = tl.sum(x_hat * wdy, axis=0) / n_cols
        c2 = tl.sum(wdy, axis=0) / n_cols
        dx = (wdy - (x_hat * c1 + c2)) * rstd
        tl.store(DX_ptr + cols, dx.to(DX_ptr.dtype.element_ty), mask=mask)

        dW_row += dy * x_hat
        db_row += dy

        X_ptr += stride_x
        Mean_ptr += 1
        RSTD_ptr += 1
        DX_ptr += stride_dx
        DY_ptr += stride_dy

    tl.store(DW_ptr + row_block_id * stride_dw + cols, dW_row, mask=mask)
    tl.store(DB_ptr + row_block_id * stride_db + cols, db_row, mask=mask)


@triton.jit
def _sum_partials_kernel(P_ptr, Out_ptr, n_parts, n_cols, BLOCK_P: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for p0 in range(0, n_parts, BLOCK_P):
        rows = p0 + tl.arange(0, BLOCK_P)
        m = (rows[:, None] < n_parts) & (cols[None, :] < n_cols)
        acc += tl.sum(tl.load(P_ptr + rows[:, None] * n_cols + cols[None, :], mask=m, other=0.0), axis=0)
    tl.store(Out_ptr + cols, acc.to(Out_ptr.dtype.element_ty), mask=cols < n_cols)


def layer_norm_forward(X, W, B, eps):
    shape = X.shape
    dim = shape[-1]
    X = X.view(-1, dim)
    n_rows, n_cols = X.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    Mean = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    RSTD = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    _layer_norm_forward_kernel[(n_rows,)](
        Y, Y.stride(0), X, X.stride(0), W, W.stride(0), B, B.stride(0),
        Mean, Mean.stride(0), RSTD, RSTD.stride(0), n_cols, eps, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return Y.view(*shape), X, Mean, RSTD, BLOCK_SIZE, num_warps


def layer_norm_backward(dY, X, W, B, Mean, RSTD):
    shape = dY.shape
    dim = shape[-1]
    dY = dY.contiguous().view(-1, dim)
    n_rows, n_cols = dY.shape
    sm_count = torch.cuda.get_device_properties(X.device).multi_processor_count if X.device.type == "cuda" else 8
    sm_count = min(sm_count, n_rows)
    rows_per_program = math.ceil(n_rows / sm_count)
    grid = (triton.cdiv(n_rows, rows_per_program),)
    DX = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    _DW = torch.empty((grid[0], n_cols), dtype=torch.float32, device=W.device)
    _DB = torch.empty((grid[0], n_cols), dtype=torch.float32, device=W.device)
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    _layer_norm_backward_kernel[grid](
        X, W, Mean, RSTD, DX, _DW, _DB, dY,
        X.stride(0), DX.stride(0), _DW.stride(0), _DB.stride(0), dY.stride(0),
        n_rows, n_cols, rows_per_program=rows_per_program, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    DW = torch.empty((n_cols,), dtype=W.dtype, device=W.device)
    DB = torch.empty((n_cols,), dtype=W.dtype, device=W.device)
    g2 = (triton.cdiv(n_cols, 256),)
    _sum_partials_kernel[g2](_DW, DW, grid[0], n_cols, BLOCK_P=16, BLOCK_N=256)
    _sum_partials_kernel[g2](_DB, DB, grid[0], n_cols, BLOCK_P=16, BLOCK_N=256)
    return DX.view(*shape), DW, DB


class LigerLayerNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X, W, B, eps):
        Y, X, Mean, RSTD, BLOCK_SIZE, num_warps = layer_norm_forward(X, W, B, eps)
        ctx.save_for_backward(X, W, B, Mean, RSTD)
        return Y

    @staticmethod
    def backward(ctx, dY):
        X, W, B, Mean, RSTD = ctx.saved_tensors
        DX, DW, DB = layer_norm_backward(dY, X, W, B, Mean, RSTD)
        return DX, DW, DB, None


def layernorm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    return LigerLayerNormFunction.apply(x, weight, bias, eps)
