import torch
import triton
import triton.language as tl


@triton.jit
def conv2d_implicit_gemm_kernel(
    input_pointer, weight_pointer, output_pointer,
    in_n, in_c, in_h, in_w,
    out_c, out_h, out_w,
    input_n_stride, input_c_stride, input_h_stride, input_w_stride,
    weight_k_stride, weight_c_stride, weight_r_stride, weight_s_stride,
    output_n_stride, output_c_stride, output_h_stride, output_w_stride,
    stride, padding,
    WEIGHT_H: tl.constexpr, WEIGHT_W: tl.constexpr,
    BLOCK_NI_HO_WO: tl.constexpr, BLOCK_CI: tl.constexpr, BLOCK_CO: tl.constexpr,
):
    pid_nhw = tl.program_id(0)
    pid_co = tl.program_id(1)

    nhw_offset = pid_nhw * BLOCK_NI_HO_WO + tl.arange(0, BLOCK_NI_HO_WO)
    n_idx = nhw_offset // (out_h * out_w)
    hw_rem = nhw_offset % (out_h * out_w)
    oh = hw_rem // out_w
    ow = hw_rem % out_w
    row_ok = nhw_offset < in_n * out_h * out_w
    out_c_offset = pid_co * BLOCK_CO + tl.arange(0, BLOCK_CO)
    co_ok = out_c_offset < out_c
    ci_range = tl.arange(0, BLOCK_CI)

    accum = tl.zeros((BLOCK_NI_HO_WO, BLOCK_CO), dtype=tl.float32)
    for r in tl.static_range(WEIGHT_H):
        ih = oh * stride - padding + r * stride
        for s in tl.static_range(WEIGHT_W):
            iw = ow * stride - padding + s
            pix_ok = row_ok & (ih >= 0) & (ih < in_h) & (iw >= 0) & (iw < in_w)
            base = input_pointer + n_idx * input_n_stride + ih * input_h_stride + iw * input_w_stride
            for c0 in range(0, in_c, BLOCK_CI):
                ci = c0 + ci_range
                ci_ok = ci < in_c
                x_tile = tl.load(base[:, None] + ci[None, :] * input_c_stride,
                                 mask=pix_ok[:, None] & ci_ok[None, :], other=0.0)
                w_tile = tl.load(weight_pointer + out_c_offset[None, :] * weight_k_stride
                                 + ci[:, None] * weight_c_stride + r * weight_r_stride + s * weight_s_stride,
                                 mask=ci_ok[:, None] & co_ok[None, :], other=0.0)
                accum += tl.dot(x_tile, w_tile)

    out_ptrs = (output_pointer + n_idx[:, None] * output_n_stride + out_c_offset[None, :] * output_c_stride
                + oh[:, None] * output_h_stride + ow[:, None] * output_w_stride)
    tl.store(out_ptrs, accum.to(tl.float16), mask=row_ok[:, None] & co_ok[None, :])


def conv2d(x: torch.Tensor, w: torch.Tensor, stride: int = 1, padding: int = 0) -> torch.Tensor:
    N, C, H, W = x.shape
    K, _, R, S = w.shape
    P = (H + 2 * padding - R) // stride + 1
    Q = (W + 2 * padding - S) // stride + 1
    out = torch.empty((N, K, P, Q), device=x.device, dtype=torch.float16)
    BLOCK_NI_HO_WO, BLOCK_CO = 64, 32
    BLOCK_CI = 32 if C > 16 else 16
    grid = (triton.cdiv(N * P * Q, BLOCK_NI_HO_WO), triton.cdiv(K, BLOCK_CO))
    conv2d_implicit_gemm_kernel[grid](
        x, w, out,
        N, C, H, W, K, P, Q,
        *x.stride(), *w.stride(), *out.stride(),
        stride, padding,
        WEIGHT_H=R, WEIGHT_W=S,
        BLOCK_NI_HO_WO=BLOCK_NI_HO_WO, BLOCK_CI=BLOCK_CI, BLOCK_CO=BLOCK_CO, num_warps=4,
    )
    return out
