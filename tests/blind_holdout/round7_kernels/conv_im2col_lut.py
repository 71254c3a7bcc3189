# drill: conv2d
# Implicit GEMM as in the classic Triton conv kernels (kernl / the "conv as GEMM" tutorials): the reduction index
# crs = c * R * S + r * S + s is decoded per element, so one tile of GEMM-K mixes channels and taps.
import torch
import triton
import triton.language as tl


@triton.jit
def _conv_implicit_gemm(x_ptr, w_ptr, y_ptr,
                        BATCH, IN_C, IN_H, IN_W, KERNEL_N, OUT_H, OUT_W, KERNEL_H, KERNEL_W,
                        stride, padding,
                        stride_xn, stride_xc, stride_xh, stride_xw,
                        stride_wn, stride_wc, stride_wh, stride_ww,
                        stride_yn, stride_yc, stride_yh, stride_yw,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_nhw = tl.program_id(0)
    pid_k = tl.program_id(1)
    off_y_k = pid_k * BLOCK_N + tl.arange(0, BLOCK_N)
    off_y_nhw = pid_nhw * BLOCK_M + tl.arange(0, BLOCK_M)
    off_y_n = off_y_nhw // (OUT_H * OUT_W)
    off_y_hw = off_y_nhw % (OUT_H * OUT_W)
    off_y_h = off_y_hw // OUT_W
    off_y_w = off_y_hw % OUT_W
    m_ok = off_y_nhw < BATCH * OUT_H * OUT_W
    CRS = IN_C * KERNEL_H * KERNEL_W

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for crs0 in range(0, CRS, BLOCK_K):
        off_crs = crs0 + tl.arange(0, BLOCK_K)
        crs_ok = off_crs < CRS
        off_c = off_crs // (KERNEL_H * KERNEL_W)
        off_rs = off_crs % (KERNEL_H * KERNEL_W)
        off_r = off_rs // KERNEL_W
        off_s = off_rs % KERNEL_W
        off_x_h = off_y_h[:, None] * stride - padding + off_r[None, :]
        off_x_w = off_y_w[:, None] * stride - padding + off_s[None, :]
        x_mask = (m_ok[:, None] & crs_ok[None, :] & (off_x_h >= 0) & (off_x_h < IN_H)
                  & (off_x_w >= 0) & (off_x_w < IN_W))
        x_ptrs = (x_ptr + off_y_n[:, None] * stride_xn + off_c[None, :] * stride_xc
                  + off_x_h * stride_xh + off_x_w * stride_xw)
        x_tile = tl.load(x_ptrs, mask=x_mask, other=0.0)
        w_ptrs = (w_ptr + off_y_k[None, :] * stride_wn + off_c[:, None] * stride_wc
                  + off_r[:, None] * stride_wh + off_s[:, None] * stride_ww)
        w_tile = tl.load(w_ptrs, mask=crs_ok[:, None] & (off_y_k[None, :] < KERNEL_N), other=0.0)
        acc += tl.dot(x_tile, w_tile)

    y_ptrs = (y_ptr + off_y_n[:, None] * stride_yn + off_y_k[None, :] * stride_yc
              + off_y_h[:, None] * stride_yh + off_y_w[:, None] * stride_yw)
    tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=m_ok[:, None] & (off_y_k[None, :] < KERNEL_N))


def conv2d(x, w, stride=1, padding=0):
    N, C, H, W = x.shape
    K, _, R, S = w.shape
    P = (H + 2 * padding - R) // stride + 1
    Q = (W + 2 * padding - S) // stride + 1
    cl = x.is_contiguous(memory_format=torch.channels_last) and not x.is_contiguous()
    y = torch.empty((N, K, P, Q), device=x.device, dtype=x.dtype,
                    memory_format=torch.channels_last if cl else torch.contiguous_format)
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 32, 32
    grid = (triton.cdiv(N * P * Q, BLOCK_M), triton.cdiv(K, BLOCK_N))
    _conv_implicit_gemm[grid](x, w, y, N, C, H, W, K, P, Q, R, S, stride, padding,
                              *x.stride(), *w.stride(), *y.stride(),
                              BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=4)
    return y
