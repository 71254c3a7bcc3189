import torch
import triton
import triton.language as tl


@triton.jit
def conv2d_forward_kernel(
    input_ptr, weight_ptr, output_ptr,
    N, C, H, W, K, P, Q, R, S,
    stride_h, stride_w, pad_h, pad_w,
    in_n, in_c, in_h, in_w,
    wt_k, wt_c, wt_r, wt_s,
    out_n, out_k, out_p, out_q,
    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    GEMM_M = N * P * Q
    GEMM_K = C * R * S

    gemm_i = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    gemm_j = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    n = gemm_i // (P * Q)
    npq_residual = gemm_i % (P * Q)
    p = npq_residual // Q
    q = npq_residual % Q
    k = gemm_j

    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for idx_k in range(0, tl.cdiv(GEMM_K, BLOCK_SIZE_K)):
        gemm_k = idx_k * BLOCK_SIZE_K + tl.arange(0, BLOCK_SIZE_K)
        c = gemm_k // (R * S)
        crs_residual = gemm_k % (R * S)
        r = crs_residual // S
        s = crs_residual % S
        h = p[:, None] * stride_h + r[None, :] - pad_h
        w = q[:, None] * stride_w + s[None, :] - pad_w

        mask_x = (h >= 0) & (h < H) & (w >= 0) & (w < W) & (gemm_i[:, None] < GEMM_M) & (gemm_k[None, :] < GEMM_K)
        mask_w = (gemm_k[:, None] < GEMM_K) & (k[None, :] < K)
        offs_x = n[:, None] * in_n + c[None, :] * in_c + h * in_h + w * in_w
        offs_w = k[None, :] * wt_k + c[:, None] * wt_c + r[:, None] * wt_r + s[:, None] * wt_s

        x_data = tl.load(input_ptr + offs_x, mask=mask_x, other=0.0)
        w_data = tl.load(weight_ptr + offs_w, mask=mask_w, other=0.0)
        acc = tl.dot(x_data, w_data, acc)

    offs_y = n[:, None] * out_n + k[None, :] * out_k + p[:, None] * out_p + q[:, None] * out_q
    mask_y = (gemm_i[:, None] < GEMM_M) & (gemm_j[None, :] < K)
    tl.store(output_ptr + offs_y, acc.to(tl.float16), mask=mask_y)


def conv2d(x: torch.Tensor, w: torch.Tensor, stride: int = 1, padding: int = 0) -> torch.Tensor:
    N, C, H, W = x.shape
    K, _, R, S = w.shape
    P = (H + 2 * padding - R) // stride + 1
    Q = (W + 2 * padding - S) // stride + 1
    y = torch.empty((N, K, P, Q), device=x.device, dtype=torch.float16)
    BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K = 32, 32, 32
    grid = (triton.cdiv(N * P * Q, BLOCK_SIZE_M), triton.cdiv(K, BLOCK_SIZE_N))
    conv2d_forward_kernel[grid](
        x, w, y, N, C, H, W, K, P, Q, R, S,
        stride, stride, padding, padding,
        *x.stride(), *w.stride(), *y.stride(),
        BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N, BLOCK_SIZE_K=BLOCK_SIZE_K,
        num_warps=4, num_stages=2,
    )
    return y
