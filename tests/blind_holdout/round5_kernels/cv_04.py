# drill: conv2d
import torch
import triton
import triton.language as tl


@triton.jit
def conv2d_direct_kernel(x_ptr, w_ptr, y_ptr, N, C, H, W, K, P, Q, stride, padding,
                         sxn, sxc, sxh, sxw, swk, swc, swr, sws, syn, syk, syp, syq,
                         R: tl.constexpr, S: tl.constexpr, BLOCK_PIX: tl.constexpr, BLOCK_K: tl.constexpr):
    # direct convolution: each program owns BLOCK_PIX output pixels x BLOCK_K output channels and walks every
    # (c, r, s) tap, accumulating the outer product x[pix] * w[k] in float32
    pid_pix = tl.program_id(0)
    pid_k = tl.program_id(1)
    pix = pid_pix * BLOCK_PIX + tl.arange(0, BLOCK_PIX)
    ks = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    pix_ok = pix < N * P * Q
    k_ok = ks < K
    n = pix // (P * Q)
    p = (pix // Q) % P
    q = pix % Q
    acc = tl.zeros((BLOCK_PIX, BLOCK_K), dtype=tl.float32)
    for c in range(0, C):
        for r in tl.static_range(R):
            ih = p * stride - padding + r
            row_ok = pix_ok & (ih >= 0) & (ih < H)
            for s in tl.static_range(S):
                iw = q * stride - padding + s
                ok = row_ok & (iw >= 0) & (iw < W)
                xv = tl.load(x_ptr + n * sxn + c * sxc + ih * sxh + iw * sxw, mask=ok, other=0.0).to(tl.float32)
                wv = tl.load(w_ptr + ks * swk + c * swc + r * swr + s * sws, mask=k_ok, other=0.0).to(tl.float32)
                acc += xv[:, None] * wv[None, :]
    y_ptrs = y_ptr + (n * syn + p * syp + q * syq)[:, None] + ks[None, :] * syk
    tl.store(y_ptrs, acc.to(tl.float16), mask=pix_ok[:, None] & k_ok[None, :])


def conv2d(x: torch.Tensor, w: torch.Tensor, stride: int = 1, padding: int = 0) -> torch.Tensor:
    N, C, H, W = x.shape
    K, C2, R, S = w.shape
    assert C == C2
    P = (H + 2 * padding - R) // stride + 1
    Q = (W + 2 * padding - S) // stride + 1
    fmt = torch.channels_last if x.is_contiguous(memory_format=torch.channels_last) and not x.is_contiguous() \
        else torch.contiguous_format
    y = torch.empty((N, K, P, Q), device=x.device, dtype=torch.float16, memory_format=fmt)
    BLOCK_PIX, BLOCK_K = 64, 16
    grid = (triton.cdiv(N * P * Q, BLOCK_PIX), triton.cdiv(K, BLOCK_K))
    conv2d_direct_kernel[grid](x, w, y, N, C, H, W, K, P, Q, stride, padding,
                               *x.stride(), *w.stride(), *y.stride(),
                               R=R, S=S, BLOCK_PIX=BLOCK_PIX, BLOCK_K=BLOCK_K, num_warps=4)
    return y
