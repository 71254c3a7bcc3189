# drill: conv2d
# expect: pass
# blind round 11 (2026-12-02, seen half): Triton-community / skeleton NHWC implicit GEMM: taps (r,s) outer and channel blocks inner in one fla
import torch
import triton
import triton.language as tl


@triton.jit
def conv2d_igemm_kernel(x_ptr, w_ptr, y_ptr, N, C, H, W, K, P, Q, R, S, stride, padding,
                        stride_xn, stride_xc, stride_xh, stride_xw,
                        stride_wr, stride_ws, stride_wc, stride_wk,
                        stride_yn, stride_yk, stride_yp, stride_yq,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_C: tl.constexpr,
                        GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    NPQ = N * P * Q
    num_m = tl.cdiv(NPQ, BLOCK_M)
    num_n = tl.cdiv(K, BLOCK_N)
    first_m = (pid // (GROUP_M * num_n)) * GROUP_M
    group_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % (GROUP_M * num_n)) % group_m
    pid_n = (pid % (GROUP_M * num_n)) // group_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_k = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_c = tl.arange(0, BLOCK_C)
    m_ok = offs_m < NPQ
    n = offs_m // (P * Q)
    pq = offs_m % (P * Q)
    p = pq // Q
    q = pq % Q
    h0 = p * stride - padding
    w0 = q * stride - padding
    x_n = x_ptr + n * stride_xn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    c_blocks = tl.cdiv(C, BLOCK_C)
    for t in range(0, R * S * c_blocks):
        rs = t // c_blocks
        c = (t % c_blocks) * BLOCK_C + offs_c
        r = rs // S
        s = rs % S
        h = h0 + r
        w = w0 + s
        inside = m_ok & (h >= 0) & (h < H) & (w >= 0) & (w < W)
        a = tl.load((x_n + h * stride_xh + w * stride_xw)[:, None] + c[None, :] * stride_xc,
                    mask=inside[:, None] & (c[None, :] < C), other=0.0)
        b = tl.load(w_ptr + r * stride_wr + s * stride_ws + c[:, None] * stride_wc + offs_k[None, :] * stride_wk,
                    mask=(c[:, None] < C) & (offs_k[None, :] < K), other=0.0)
        acc = tl.dot(a, b, acc)

    y_ptrs = y_ptr + (n * stride_yn + p * stride_yp + q * stride_yq)[:, None] + offs_k[None, :] * stride_yk
    tl.store(y_ptrs, acc.to(tl.float16), mask=m_ok[:, None] & (offs_k[None, :] < K))


def conv2d(x: torch.Tensor, w: torch.Tensor, stride: int = 1, padding: int = 0) -> torch.Tensor:
    N, C, H, W = x.shape
    K, C2, R, S = w.shape
    assert C == C2
    P = (H + 2 * padding - R) // stride + 1
    Q = (W + 2 * padding - S) // stride + 1
    channels_last = x.is_contiguous(memory_format=torch.channels_last) and not x.is_contiguous()
    y = torch.empty((N, K, P, Q), device=x.device, dtype=torch.float16,
                    memory_format=torch.channels_last if channels_last else torch.contiguous_format)
    w_rsck = w.permute(2, 3, 1, 0).contiguous()
    BLOCK_M, BLOCK_N = 64, 32
    BLOCK_C = 64 if C >= 64 else 16
    grid = (triton.cdiv(N * P * Q, BLOCK_M) * triton.cdiv(K, BLOCK_N),)
    conv2d_igemm_kernel[grid](x, w_rsck, y, N, C, H, W, K, P, Q, R, S, stride, padding,
                              *x.stride(), *w_rsck.stride(), *y.stride(),
                              BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_C=BLOCK_C, GROUP_M=8,
                              num_warps=4, num_stages=3)
    return y
