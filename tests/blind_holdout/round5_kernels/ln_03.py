# drill: layernorm
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _layer_norm_forward_kernel(Y_ptr, Y_row_stride, X_ptr, X_row_stride, W_ptr, B_ptr,
                               Mean_ptr, RSTD_ptr, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    X_row = tl.load(X_ptr + row_idx * X_row_stride + col_offsets, mask=mask, other=0.0).to(tl.float32)
    W_row = tl.load(W_ptr + col_offsets, mask=mask, other=0.0).to(tl.float32)
    B_row = tl.load(B_ptr + col_offsets, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(X_row, axis=0) / n_cols
    Xmm = tl.where(mask, X_row - mean, 0.0)
    var = tl.sum(Xmm * Xmm, axis=0) / n_cols
    rstd = tl.rsqrt(var + eps)
    tl.store(Mean_ptr + row_idx, mean)
    tl.store(RSTD_ptr + row_idx, rstd)
    Y_row = Xmm * rstd * W_row + B_row
    tl.store(Y_ptr + row_idx * Y_row_stride + col_offsets, Y_row.to(Y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _layer_norm_backward_kernel(X_ptr, W_ptr, Mean_ptr, RSTD_ptr, DX_ptr, DW_ptr, DB_ptr, DY_ptr,
                                stride_x, stride_dx, stride_dy, stride_dw, n_rows, n_cols,
                                rows_per_program, BLOCK_SIZE: tl.constexpr):
    # each program owns a contiguous slab of rows and keeps its dW / dB partial sums in registers
    row_block_id = tl.program_id(0)
    row_start = row_block_id * rows_per_program
    row_end = tl.minimum((row_block_id + 1) * rows_per_program, n_rows)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    dW_row = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    dB_row = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    w = tl.load(W_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    for row in range(row_start, row_end):
        x = tl.load(X_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(DY_ptr + row * stride_dy + cols, mask=mask, other=0.0).to(tl.float32)
        mean = tl.load(Mean_ptr + row)
        rstd = tl.load(RSTD_ptr + row)
        x_hat = tl.where(mask, (x - mean) * rstd, 0.0)
        wdy = w * dy
        c1 = tl.sum(x_hat * wdy, axis=0) / n_cols
        c2 = tl.sum(wdy, axis=0) / n_cols
        dx = (wdy - (x_hat * c1 + c2)) * rstd
        tl.store(DX_ptr + row * stride_dx + cols, dx.to(DX_ptr.dtype.element_ty), mask=mask)
        dW_row += dy * x_hat
        dB_row += dy
    tl.store(DW_ptr + row_block_id * stride_dw + cols, dW_row, mask=mask)
    tl.store(DB_ptr + row_block_id * stride_dw + cols, dB_row, mask=mask)


@triton.jit
def _sum_partials_kernel(P_ptr, Q_ptr, OUTP_ptr, OUTQ_ptr, n_parts, n_cols,
                         BLOCK_P: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    accp = tl.zeros((BLOCK_N,), dtype=tl.float32)
    accq = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for p0 in range(0, n_parts, BLOCK_P):
        parts = p0 + tl.arange(0, BLOCK_P)
        m = (parts[:, None] < n_parts) & (cols[None, :] < n_cols)
        offs = parts[:, None] * n_cols + cols[None, :]
        accp += tl.sum(tl.load(P_ptr + offs, mask=m, other=0.0), axis=0)
        accq += tl.sum(tl.load(Q_ptr + offs, mask=m, other=0.0), axis=0)
    tl.store(OUTP_ptr + cols, accp.to(OUTP_ptr.dtype.element_ty), mask=cols < n_cols)
    tl.store(OUTQ_ptr + cols, accq.to(OUTQ_ptr.dtype.element_ty), mask=cols < n_cols)


def layer_norm_forward(X, W, B, eps):
    n_rows, n_cols = X.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 4 if BLOCK_SIZE < 2048 else 8
    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    Mean = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    RSTD = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    _layer_norm_forward_kernel[(n_rows,)](Y, Y.stride(0), X, X.stride(0), W, B, Mean, RSTD, n_cols, eps,
                                         BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return Y, Mean, RSTD, BLOCK_SIZE, num_warps


def layer_norm_backward(dY, X, W, B, Mean, RSTD, BLOCK_SIZE, num_warps):
    n_rows, n_cols = dY.shape
    sm_count = 32 if X.device.type == "cpu" else torch.cuda.get_device_properties(X.device).multi_processor_count
    sm_count = max(1, min(sm_count, n_rows))
    rows_per_program = math.ceil(n_rows / sm_count)
    n_programs = triton.cdiv(n_rows, rows_per_program)
    DX = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    _DW = torch.empty((n_programs, n_cols), dtype=torch.float32, device=W.device)
    _DB = torch.empty((n_programs, n_cols), dtype=torch.float32, device=W.device)
    _layer_norm_backward_kernel[(n_programs,)](X, W, Mean, RSTD, DX, _DW, _DB, dY,
                                               X.stride(0), DX.stride(0), dY.stride(0), _DW.stride(0),
                                               n_rows, n_cols, rows_per_program,
                                               BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    DW = torch.empty((n_cols,), dtype=W.dtype, device=W.device)
    DB = torch.empty((n_cols,), dtype=B.dtype, device=W.device)
    _sum_partials_kernel[(triton.cdiv(n_cols, 128),)](_DW, _DB, DW, DB, n_programs, n_cols, BLOCK_P=32, BLOCK_N=128)
    return DX, DW, DB


class LigerLayerNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X, W, B, eps):
        X = X.contiguous()
        Y, Mean, RSTD, BLOCK_SIZE, num_warps = layer_norm_forward(X, W, B, eps)
        ctx.save_for_backward(X, W, B, Mean, RSTD)
        ctx.BLOCK_SIZE, ctx.num_warps = BLOCK_SIZE, num_warps
        return Y

    @staticmethod
    def backward(ctx, dY):
        X, W, B, Mean, RSTD = ctx.saved_tensors
        DX, DW, DB = layer_norm_backward(dY.contiguous(), X, W, B, Mean, RSTD, ctx.BLOCK_SIZE, ctx.num_warps)
        return DX, DW, DB, None


def layernorm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    return LigerLayerNormFunction.apply(x, weight, bias, eps)
