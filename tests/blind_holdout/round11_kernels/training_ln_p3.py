import math

import torch
import triton
import triton.language as tl


def _calculate_settings(n):
    MAX_FUSED_SIZE = 65536
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(f"Cannot launch Triton kernel since n = {n} exceeds the maximum CUDA blocksize")
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
    Y_ptr, Y_row_stride,
    X_ptr, X_row_stride,
    W_ptr, B_ptr,
    Mean_ptr, RSTD_ptr,
    n_cols, eps,
    BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0).to(tl.int64)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    X_row = tl.load(X_ptr + row_idx * X_row_stride + col_offsets, mask=mask, other=0).to(tl.float32)
    W_row = tl.load(W_ptr + col_offsets, mask=mask, other=0).to(tl.float32)
    B_row = tl.load(B_ptr + col_offsets, mask=mask, other=0).to(tl.float32)

    mean = tl.sum(X_row, axis=0) / n_cols
    Xmm = tl.where(mask, X_row - mean, 0)
    var = tl.sum(Xmm * Xmm, axis=0) / n_cols
    rstd = tl.rsqrt(var + eps)

    tl.store(Mean_ptr + row_idx, mean)
    tl.store(RSTD_ptr + row_idx, rstd)

    Y_row = Xmm * rstd * W_row + B_row
    tl.store(Y_ptr + row_idx * Y_row_stride + col_offsets, Y_row.to(Y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _layer_norm_backward_kernel(
    X_ptr, X_row_stride,
    W_ptr,
    Mean_ptr, RSTD_ptr,
    DX_ptr, DX_row_stride,
    DW_ptr, DB_ptr,
    DY_ptr, DY_row_stride,
    n_rows, n_cols,
    rows_per_program,
    BLOCK_SIZE: tl.constexpr,
):
    row_block_id = tl.program_id(0).to(tl.int64)
    row_start = row_block_id * rows_per_program
    row_end = min((row_block_id + 1) * rows_per_program, n_rows)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols

    dW_row = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    db_row = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)

    w = tl.load(W_ptr + cols, mask=mask, other=0.0).to(tl.float32)

    for row_idx in range(row_start, row_end):
        x = tl.load(X_ptr + row_idx * X_row_stride + cols, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(DY_ptr + row_idx * DY_row_stride + cols, mask=mask, other=0.0).to(tl.float32)
        mean = tl.load(Mean_ptr + row_idx)
        rstd = tl.load(RSTD_ptr + row_idx)

        x_hat = tl.where(mask, (x - mean) * rstd, 0.0)
        wdy = w * dy
        c1 = tl.sum(x_hat * wdy, axis=0) / n_cols
        c2 = tl.sum(wdy, axis=0) / n_cols
        dx = (wdy - (x_hat * c1 + c2)) * rstd
        tl.store(DX_ptr + row_idx * DX_row_stride + cols, dx.to(DX_ptr.dtype.element_ty), mask=mask)

        dW_row += dy * x_hat
        db_row += dy

    tl.store(DW_ptr + row_block_id * n_cols + cols, dW_row, mask=mask)
    tl.store(DB_ptr + row_block_id * n_cols + cols, db_row, mask=mask)


@triton.jit
def _column_sum_kernel(In_W, In_B, Out_W, Out_B, n_rows, n_cols,
                       BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_COLS + tl.arange(0, BLOCK_COLS)
    col_mask = cols < n_cols
    acc_w = tl.zeros((BLOCK_COLS,), dtype=tl.float32)
    acc_b = tl.zeros((BLOCK_COLS,), dtype=tl.float32)
    for r0 in range(0, n_rows, BLOCK_ROWS):
        rows = r0 + tl.arange(0, BLOCK_ROWS)
        m = (rows[:, None] < n_rows) & col_mask[None, :]
        offs = rows[:, None].to(tl.int64) * n_cols + cols[None, :]
        acc_w += tl.sum(tl.load(In_W + offs, mask=m, other=0.0), axis=0)
        acc_b += tl.sum(tl.load(In_B + offs, mask=m, other=0.0), axis=0)
    tl.store(Out_W + cols, acc_w.to(Out_W.dtype.element_ty), mask=col_mask)
    tl.store(Out_B + cols, acc_b.to(Out_B.dtype.element_ty), mask=col_mask)


def layer_norm_forward(X, W, B, eps):
    shape = X.shape
    dim = shape[-1]
    X = X.view(-1, dim)
    n_rows, n_cols = X.shape
    BLOCK_SIZE, num_warps = _calculate_settings(n_cols)
    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    Mean = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    RSTD = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    _layer_norm_forward_kernel[(n_rows,)](
        Y, Y.stride(0), X, X.stride(0), W, B, Mean, RSTD, n_cols, eps,
        BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps,
    )
    return Y.view(*shape), X, Mean, RSTD, BLOCK_SIZE, num_warps


def layer_norm_backward(dY, X, W, B, Mean, RSTD):
    shape = dY.shape
    dim = shape[-1]
    dY = dY.reshape(-1, dim).contiguous()
    n_rows, n_cols = dY.shape
    if X.device.type == "cuda":
        sm_count = torch.cuda.get_device_properties(X.device).multi_processor_count
    else:
        sm_count = 6
    sm_count = max(1, min(sm_count, n_rows))
    rows_per_program = math.ceil(n_rows / sm_count)
    grid_size = math.ceil(n_rows / rows_per_program)

    DX = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    _DW = torch.empty((grid_size, n_cols), dtype=torch.float32, device=W.device)
    _DB = torch.empty((grid_size, n_cols), dtype=torch.float32, device=W.device)
    BLOCK_SIZE, num_warps = _calculate_settings(n_cols)

    _layer_norm_backward_kernel[(grid_size,)](
        X, X.stride(0), W, Mean, RSTD, DX, DX.stride(0), _DW, _DB, dY, dY.stride(0),
        n_rows, n_cols, rows_per_program, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps,
    )
    DW = torch.empty((n_cols,), dtype=W.dtype, device=W.device)
    DB = torch.empty((n_cols,), dtype=B.dtype, device=B.device)
    BLOCK_COLS = 128
    _column_sum_kernel[(triton.cdiv(n_cols, BLOCK_COLS),)](
        _DW, _DB, DW, DB, grid_size, n_cols, BLOCK_ROWS=16, BLOCK_COLS=BLOCK_COLS,
    )
    return DX.view(*shape), DW, DB


class LigerStyleLayerNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X, W, B, eps):
        Y, X2d, Mean, RSTD, _, _ = layer_norm_forward(X, W, B, eps)
        ctx.save_for_backward(X2d, W, B, Mean, RSTD)
        return Y

    @staticmethod
    def backward(ctx, dY):
        X, W, B, Mean, RSTD = ctx.saved_tensors
        DX, DW, DB = layer_norm_backward(dY, X, W, B, Mean, RSTD)
        return DX, DW, DB, None


def layernorm(x, weight, bias, eps=1e-5):
    return LigerStyleLayerNormFunction.apply(x.contiguous(), weight, bias, eps)
