# drill: conv2d
import torch
import triton
import triton.language as tl


@triton.jit
def conv2d_igemm_crs_kernel(x_ptr, w_ptr, y_ptr, N, C, H, W, K, P, Q, R, S, stride, padding,
                            sxn, sxc, sxh, sxw, swk, swc, swr, sws, syn, syk, syp, syq,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # GEMM-K flattened in the weight's own (c, r, s) order, one gathered (BLOCK_M, BLOCK_K) im2col tile per step
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    NPQ = N * P * Q
    CRS = C * R * S
    m_ok = rm < NPQ
    n_ok = rn < K
    img = rm // (P * Q)
    oh = (rm // Q) % P
    ow = rm % Q
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, CRS, BLOCK_K):
        kk = k0 + tl.arange(0, BLOCK_K)
        k_ok = kk < CRS
        c = kk // (R * S)
        rs = kk % (R * S)
        r = rs // S
        s = rs % S
        ih = oh[:, None] * stride - padding + r[None, :]
        iw = ow[:, None] * stride - padding + s[None, :]
        a_mask = m_ok[:, None] & k_ok[None, :] & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
        a = tl.load(x_ptr + img[:, None] * sxn + c[None, :] * sxc + ih * sxh + iw * sxw, mask=a_mask, other=0.0)
        b = tl.load(w_ptr + rn[None, :] * swk + c[:, None] * swc + r[:, None] * swr + s[:, None] * sws,
                    mask=k_ok[:, None] & n_ok[None, :], other=0.0)
        acc = tl.dot(a, b, acc)
    y_ptrs = y_ptr + (img * syn + oh * syp + ow * syq)[:, None] + rn[None, :] * syk
    tl.store(y_ptrs, acc.to(tl.float16), mask=m_ok[:, None] & n_ok[None, :])


def conv2d(x: torch.Tensor, w: torch.Tensor, stride: int = 1, padding: int = 0) -> torch.Tensor:
    N, C, H, W = x.shape
    K, C2, R, S = w.shape
    assert C == C2
    P = (H + 2 * padding - R) // stride + 1
    Q = (W + 2 * padding - S) // stride + 1
    y = torch.empty((N, K, P, Q), device=x.device, dtype=torch.float16)
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 32, 32
    grid = (triton.cdiv(N * P * Q, BLOCK_M), triton.cdiv(K, BLOCK_N))
    conv2d_igemm_crs_kernel[grid](x, w, y, N, C, H, W, K, P, Q, R, S, stride, padding,
                                  *x.stride(), *w.stride(), *y.stride(),
                                  BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=4)
    return y
