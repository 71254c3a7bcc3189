# drill: conv2d
import torch
import triton
import triton.language as tl


@triton.jit
def conv2d_kernel(x_ptr, w_ptr, y_ptr, N, C, H, W, K, P, Q, R, S, stride, padding,
                  stride_xn, stride_xc, stride_xh, stride_xw,
                  stride_wr, stride_ws, stride_wc, stride_wk,
                  stride_yn, stride_yk, stride_yp, stride_yq,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_k = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_c = tl.arange(0, BLOCK_C)
    m_ok = offs_m < N * P * Q
    k_ok = offs_k < K
    q = offs_m % Q
    p = (offs_m // Q) % P
    n = offs_m // (P * Q)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for r in range(0, R):
        h = p * stride + r - padding
        h_ok = (h >= 0) & (h < H)
        for s in range(0, S):
            w = q * stride + s - padding
            ok = m_ok & h_ok & (w >= 0) & (w < W)
            base = x_ptr + n * stride_xn + h * stride_xh + w * stride_xw
            for c0 in range(0, C, BLOCK_C):
                c = c0 + offs_c
                c_ok = c < C
                a = tl.load(base[:, None] + c[None, :] * stride_xc, mask=ok[:, None] & c_ok[None, :], other=0.0)
                b = tl.load(w_ptr + r * stride_wr + s * stride_ws + c[:, None] * stride_wc + offs_k[None, :] * stride_wk,
                            mask=c_ok[:, None] & k_ok[None, :], other=0.0)
                acc += tl.dot(a, b)
    y_ptrs = y_ptr + (n * stride_yn + p * stride_yp + q * stride_yq)[:, None] + offs_k[None, :] * stride_yk
    tl.store(y_ptrs, acc.to(tl.float16), mask=m_ok[:, None] & k_ok[None, :])


def conv2d(x: torch.Tensor, w: torch.Tensor, stride: int = 1, padding: int = 0) -> torch.Tensor:
    N, C, H, W = x.shape
    K, _, R, S = w.shape
    P = (H + 2 * padding - R) // stride + 1
    Q = (W + 2 * padding - S) // stride + 1
    fmt = torch.channels_last if (x.is_contiguous(memory_format=torch.channels_last) and not x.is_contiguous()) \
        else torch.contiguous_format
    y = torch.empty((N, K, P, Q), device=x.device, dtype=torch.float16, memory_format=fmt)
    w_rsck = w.permute(2, 3, 1, 0).contiguous()
    BLOCK_M, BLOCK_N, BLOCK_C = 32, 16, 16
    grid = (triton.cdiv(N * P * Q, BLOCK_M), triton.cdiv(K, BLOCK_N))
    conv2d_kernel[grid](x, w_rsck, y, N, C, H, W, K, P, Q, R, S, stride, padding,
                        x.stride(0), x.stride(1), x.stride(2), x.stride(3),
                        w_rsck.stride(0), w_rsck.stride(1), w_rsck.stride(2), w_rsck.stride(3),
                        y.stride(0), y.stride(1), y.stride(2), y.stride(3),
                        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_C=BLOCK_C, num_warps=2)
    return y
