# drill: conv2d
# expect: pass
# The implicit GEMM as many public Triton repos write it: one flat GEMM-K loop over C·R·S, each lane of the K
# block decomposed into (c, r, s), the im2col tile gathered with a 2-D mask; the output written NCHW-contiguous.
import torch
import triton
import triton.language as tl


@triton.jit
def conv2d_implicit_gemm(x, w, y, N, C, H, W, K, P, Q, R, S, U, PAD,
                         sxn, sxc, sxh, sxw, swk, swc, swr, sws,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    gemm_m = N * P * Q
    gemm_k = C * R * S
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    nn = rm // (P * Q)
    pp = (rm // Q) % P
    qq = rm % Q
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, gemm_k, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        cc = rk // (R * S)
        rr = (rk // S) % R
        ss = rk % S
        ih = pp[:, None] * U - PAD + rr[None, :]
        iw = qq[:, None] * U - PAD + ss[None, :]
        a_mask = (rm[:, None] < gemm_m) & (rk[None, :] < gemm_k) & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
        a = tl.load(x + nn[:, None] * sxn + cc[None, :] * sxc + ih * sxh + iw * sxw, mask=a_mask, other=0.0)
        b_mask = (rk[:, None] < gemm_k) & (rn[None, :] < K)
        b = tl.load(w + rn[None, :] * swk + cc[:, None] * swc + rr[:, None] * swr + ss[:, None] * sws, mask=b_mask,
                    other=0.0)
        acc += tl.dot(a, b)
    out = y + nn[:, None] * (K * P * Q) + rn[None, :] * (P * Q) + pp[:, None] * Q + qq[:, None]
    tl.store(out, acc.to(tl.float16), mask=(rm[:, None] < gemm_m) & (rn[None, :] < K))


def conv2d(x, w, stride=1, padding=0):
    N, C, H, W = x.shape
    K, _, R, S = w.shape
    P = (H + 2 * padding - R) // stride + 1
    Q = (W + 2 * padding - S) // stride + 1
    y = torch.empty((N, K, P, Q), dtype=torch.float16, device=x.device)
    grid = (triton.cdiv(N * P * Q, 64), triton.cdiv(K, 32))
    conv2d_implicit_gemm[grid](x, w, y, N, C, H, W, K, P, Q, R, S, stride, padding, *x.stride(), *w.stride(),
                               BLOCK_M=64, BLOCK_N=32, BLOCK_K=32)
    return y
