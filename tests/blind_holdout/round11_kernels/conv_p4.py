import torch
import triton
import triton.language as tl


@triton.jit
def _delta_x_kernel(dr_ptr, ds_ptr, dc_ptr, dx_ptr, C, S, CRS, stride_xc, stride_xh, stride_xw,
                    BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < CRS
    rs = offs // C
    c = offs % C
    r = rs // S
    s = rs % S
    tl.store(dr_ptr + offs, r, mask=ok)
    tl.store(ds_ptr + offs, s, mask=ok)
    tl.store(dc_ptr + offs, c, mask=ok)
    tl.store(dx_ptr + offs, r * stride_xh + s * stride_xw + c * stride_xc, mask=ok)


@triton.jit
def _kernel_delta_x_hwc(
    x, w, y,
    stride_xn, stride_xc, stride_xh, stride_xw,
    stride_wn, stride_wc, stride_wh, stride_ww,
    stride_yn, stride_yc, stride_yh, stride_yw,
    delta_r_ptr, delta_s_ptr, delta_c_ptr, delta_x_ptr,
    BATCH, IN_C, IN_H, IN_W, KERNEL_N, KERNEL_H, KERNEL_W, OUT_H, OUT_W,
    stride_h, stride_w, padding_h, padding_w,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid_nhw = tl.program_id(0)
    pid_k = tl.program_id(1)

    off_y_k = pid_k * BLOCK_N + tl.arange(0, BLOCK_N)
    off_y_nhw = pid_nhw * BLOCK_M + tl.arange(0, BLOCK_M)
    off_y_n = off_y_nhw // (OUT_H * OUT_W)
    off_y_hw = off_y_nhw % (OUT_H * OUT_W)
    off_y_h = off_y_hw // OUT_W
    off_y_w = off_y_hw % OUT_W

    off_x_h = off_y_h * stride_h - padding_h
    off_x_w = off_y_w * stride_w - padding_w
    off_x_nhw = off_y_n * stride_xn + off_x_h * stride_xh + off_x_w * stride_xw
    m_ok = off_y_nhw < BATCH * OUT_H * OUT_W

    CRS = IN_C * KERNEL_H * KERNEL_W
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for crs in range(0, CRS, BLOCK_K):
        off_x_crs = crs + tl.arange(0, BLOCK_K)
        crs_ok = off_x_crs < CRS
        d_r = tl.load(delta_r_ptr + off_x_crs, mask=crs_ok, other=0)
        d_s = tl.load(delta_s_ptr + off_x_crs, mask=crs_ok, other=0)
        d_c = tl.load(delta_c_ptr + off_x_crs, mask=crs_ok, other=0)
        d_x = tl.load(delta_x_ptr + off_x_crs, mask=crs_ok, other=0)

        off_x_h_tap = off_x_h[:, None] + d_r[None, :]
        off_x_w_tap = off_x_w[:, None] + d_s[None, :]
        mask_x = (m_ok[:, None] & crs_ok[None, :]
                  & (off_x_h_tap >= 0) & (off_x_h_tap < IN_H) & (off_x_w_tap >= 0) & (off_x_w_tap < IN_W))
        matrix_x = tl.load(x + off_x_nhw[:, None] + d_x[None, :], mask=mask_x, other=0.0)

        w_ptrs = (w + off_y_k[None, :] * stride_wn + d_c[:, None] * stride_wc
                  + d_r[:, None] * stride_wh + d_s[:, None] * stride_ww)
        matrix_w = tl.load(w_ptrs, mask=crs_ok[:, None] & (off_y_k[None, :] < KERNEL_N), other=0.0)
        acc += tl.dot(matrix_x, matrix_w)

    y_ptrs = (y + off_y_n[:, None] * stride_yn + off_y_h[:, None] * stride_yh + off_y_w[:, None] * stride_yw
              + off_y_k[None, :] * stride_yc)
    tl.store(y_ptrs, acc.to(tl.float16), mask=m_ok[:, None] & (off_y_k[None, :] < KERNEL_N))


def conv2d(x: torch.Tensor, w: torch.Tensor, stride: int = 1, padding: int = 0) -> torch.Tensor:
    N, C, H, W = x.shape
    K, _, R, S = w.shape
    P = (H + 2 * padding - R) // stride + 1
    Q = (W + 2 * padding - S) // stride + 1
    CRS = C * R * S
    dev = x.device
    delta_r = torch.empty(CRS, device=dev, dtype=torch.int32)
    delta_s = torch.empty(CRS, device=dev, dtype=torch.int32)
    delta_c = torch.empty(CRS, device=dev, dtype=torch.int32)
    delta_x = torch.empty(CRS, device=dev, dtype=torch.int32)
    _delta_x_kernel[(triton.cdiv(CRS, 256),)](delta_r, delta_s, delta_c, delta_x, C, S, CRS,
                                              x.stride(1), x.stride(2), x.stride(3), BLOCK=256)
    y = torch.empty((N, K, P, Q), device=dev, dtype=torch.float16)
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 32, 32
    grid = (triton.cdiv(N * P * Q, BLOCK_M), triton.cdiv(K, BLOCK_N))
    _kernel_delta_x_hwc[grid](
        x, w, y,
        *x.stride(), *w.stride(), *y.stride(),
        delta_r, delta_s, delta_c, delta_x,
        N, C, H, W, K, R, S, P, Q,
        stride, stride, padding, padding,
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=4, num_stages=2,
    )
    return y
