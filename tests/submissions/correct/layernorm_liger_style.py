# drill: layernorm
# expect: pass
"""Liger-Kernel's layout (liger_kernel/ops/layer_norm.py): the forward saves mean and rstd; the backward launches a
fixed number of programs, each walking a contiguous block of rows_per_program rows, keeping its dW/dB partial sums
in registers and writing one row of a (programs, N) float32 buffer (deterministic: no atomics, no lock). Liger then
sums that buffer with torch (`_DW.sum(dim=0)`); here a second Triton kernel does, since that sum is the drill's
hole."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _layer_norm_forward_kernel(Y_ptr, Y_row_stride, X_ptr, X_row_stride, W_ptr, B_ptr, Mean_ptr, RSTD_ptr,
                               n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
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
def _layer_norm_backward_kernel(X_ptr, W_ptr, Mean_ptr, RSTD_ptr, DX_ptr, DW_ptr, DB_ptr, DY_ptr, stride_x,
                                stride_dx, stride_dw, stride_db, stride_dy, n_rows, n_cols,
                                rows_per_program: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row_block_id = tl.program_id(0)
    row_start = row_block_id * rows_per_program
    row_end = min((row_block_id + 1) * rows_per_program, n_rows)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    dw_row = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    db_row = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
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
        dw_row += dy * x_hat
        db_row += dy
    tl.store(DW_ptr + row_block_id * stride_dw + cols, dw_row, mask=mask)
    tl.store(DB_ptr + row_block_id * stride_db + cols, db_row, mask=mask)


@triton.jit
def _sum_rows_kernel(P_ptr, Q_ptr, OutP_ptr, OutQ_ptr, n_rows, n_cols, BLOCK_R: tl.constexpr,
                     BLOCK_C: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_C + tl.arange(0, BLOCK_C)
    acc_p = tl.zeros((BLOCK_C,), dtype=tl.float32)
    acc_q = tl.zeros((BLOCK_C,), dtype=tl.float32)
    for r0 in range(0, n_rows, BLOCK_R):
        rows = r0 + tl.arange(0, BLOCK_R)
        m = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        acc_p += tl.sum(tl.load(P_ptr + rows[:, None] * n_cols + cols[None, :], mask=m, other=0.0), axis=0)
        acc_q += tl.sum(tl.load(Q_ptr + rows[:, None] * n_cols + cols[None, :], mask=m, other=0.0), axis=0)
    tl.store(OutP_ptr + cols, acc_p.to(OutP_ptr.dtype.element_ty), mask=cols < n_cols)
    tl.store(OutQ_ptr + cols, acc_q.to(OutQ_ptr.dtype.element_ty), mask=cols < n_cols)


def layer_norm_forward(X, W, B, eps):
    n_rows, n_cols = X.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    Mean = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    RSTD = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    _layer_norm_forward_kernel[(n_rows,)](Y, Y.stride(0), X, X.stride(0), W, B, Mean, RSTD, n_cols, eps,
                                          BLOCK_SIZE=BLOCK_SIZE)
    return Y, X, Mean, RSTD, BLOCK_SIZE


def layer_norm_backward(dY, X, W, Mean, RSTD):
    n_rows, n_cols = dY.shape
    sm_count = torch.cuda.get_device_properties(X.device).multi_processor_count if X.is_cuda else 4
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    _DW = torch.empty((sm_count, n_cols), dtype=torch.float32, device=W.device)
    _DB = torch.empty((sm_count, n_cols), dtype=torch.float32, device=W.device)
    DX = torch.empty_like(dY)
    rows_per_program = math.ceil(n_rows / sm_count)
    grid = (sm_count,)
    _layer_norm_backward_kernel[grid](X, W, Mean, RSTD, DX, _DW, _DB, dY, X.stride(0), DX.stride(0),
                                      _DW.stride(0), _DB.stride(0), dY.stride(0), n_rows, n_cols,
                                      rows_per_program=rows_per_program, BLOCK_SIZE=BLOCK_SIZE)
    DW = torch.empty(n_cols, dtype=W.dtype, device=W.device)
    DB = torch.empty(n_cols, dtype=W.dtype, device=W.device)
    _sum_rows_kernel[(triton.cdiv(n_cols, 128),)](_DW, _DB, DW, DB, sm_count, n_cols, BLOCK_R=8, BLOCK_C=128)
    return DX, DW, DB


class LigerLayerNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X, W, B, eps):
        Y, X, Mean, RSTD, BLOCK_SIZE = layer_norm_forward(X, W, B, eps)
        ctx.save_for_backward(X, W, B, Mean, RSTD)
        return Y

    @staticmethod
    def backward(ctx, dY):
        X, W, B, Mean, RSTD = ctx.saved_tensors
        DX, DW, DB = layer_norm_backward(dY.contiguous(), X, W, Mean, RSTD)
        return DX, DW, DB, None


def layernorm(x, weight, bias, eps=1e-5):
    return LigerLayerNormFunction.apply(x, weight, bias, eps)
