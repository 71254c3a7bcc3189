# drill: conv2d
# expect: mask
# blind round 11 (2026-12-02, seen half): AMD aiter _conv2d_nhwc_kernel style: K order (kh, kw, ci) with ci fastest, flattened K loop, channel
import torch
import triton
import triton.language as tl


@triton.jit
def _conv2d_nhwc_kernel(
    X, Wt, Y,
    BATCH, C_IN, IH, IW, C_OUT, OH, OW, KH, KW,
    STRIDE, PAD,
    sxn, sxc, sxh, sxw,
    swk, swc, swh, sww,
    syn, syc, syh, syw,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    M_TOTAL = BATCH * OH * OW
    K_TOTAL = KH * KW * C_IN

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    m_valid = offs_m < M_TOTAL
    n_valid = offs_n < C_OUT

    b_idx = offs_m // (OH * OW)
    ohw = offs_m % (OH * OW)
    oh = ohw // OW
    ow = ohw % OW
    ih_base = oh * STRIDE - PAD
    iw_base = ow * STRIDE - PAD

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K_TOTAL, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        k_valid = offs_k < K_TOTAL
        ci = offs_k % C_IN
        tap = offs_k // C_IN
        kh = tap // KW
        kw = tap % KW

        ih = ih_base[:, None] + kh[None, :]
        iw = iw_base[:, None] + kw[None, :]
        in_bounds = (ih >= 0) & (iw >= 0)
        a_mask = m_valid[:, None] & k_valid[None, :] & in_bounds
        a = tl.load(X + b_idx[:, None] * sxn + ih * sxh + iw * sxw + ci[None, :] * sxc, mask=a_mask, other=0.0)

        b_mask = k_valid[:, None] & n_valid[None, :]
        b = tl.load(Wt + offs_n[None, :] * swk + ci[:, None] * swc + kh[:, None] * swh + kw[:, None] * sww,
                    mask=b_mask, other=0.0)
        acc += tl.dot(a, b)

    y_ptrs = Y + b_idx[:, None] * syn + offs_n[None, :] * syc + oh[:, None] * syh + ow[:, None] * syw
    tl.store(y_ptrs, acc.to(tl.float16), mask=m_valid[:, None] & n_valid[None, :])


def conv2d(x: torch.Tensor, w: torch.Tensor, stride: int = 1, padding: int = 0) -> torch.Tensor:
    N, C, H, W = x.shape
    K, _, R, S = w.shape
    P = (H + 2 * padding - R) // stride + 1
    Q = (W + 2 * padding - S) // stride + 1
    y = torch.empty((N, K, P, Q), device=x.device, dtype=torch.float16).contiguous(memory_format=torch.channels_last)
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 32, 32
    grid = (triton.cdiv(N * P * Q, BLOCK_M), triton.cdiv(K, BLOCK_N))
    _conv2d_nhwc_kernel[grid](
        x, w, y,
        N, C, H, W, K, P, Q, R, S,
        stride, padding,
        *x.stride(), *w.stride(), *y.stride(),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=4, num_stages=2,
    )
    return y
