# drill: conv2d
# expect: pass
# A direct convolution without tl.dot (a candidate who does not trust tensor cores with a gather): a tile of
# output pixels x output channels, one outer product per (c, r, s), padding handled by the load mask.
import torch
import triton
import triton.language as tl


@triton.jit
def direct_conv(x_ptr, w_ptr, y_ptr, C, H, W, K, P, Q, R, S, stride, padding,
                sxn, sxc, sxh, sxw, swk, swc, swr, sws, syn, syk, syp, syq,
                BLOCK_PQ: tl.constexpr, BLOCK_K: tl.constexpr):
    n = tl.program_id(0)
    pq = tl.program_id(1) * BLOCK_PQ + tl.arange(0, BLOCK_PQ)
    k = tl.program_id(2) * BLOCK_K + tl.arange(0, BLOCK_K)
    p = pq // Q
    q = pq % Q
    live = pq < P * Q
    acc = tl.zeros((BLOCK_PQ, BLOCK_K), dtype=tl.float32)
    for c in range(C):
        for r in range(R):
            for s in range(S):
                h = p * stride + r - padding
                w = q * stride + s - padding
                ok = live & (h >= 0) & (w >= 0) & (h < H) & (w < W)
                xv = tl.load(x_ptr + n * sxn + c * sxc + h * sxh + w * sxw, mask=ok, other=0.0).to(tl.float32)
                wv = tl.load(w_ptr + k * swk + c * swc + r * swr + s * sws, mask=k < K, other=0.0).to(tl.float32)
                acc += xv[:, None] * wv[None, :]
    tl.store(y_ptr + n * syn + p[:, None] * syp + q[:, None] * syq + k[None, :] * syk, acc.to(tl.float16),
             mask=live[:, None] & (k[None, :] < K))


def conv2d(x, w, stride=1, padding=0):
    N, C, H, W = x.shape
    K, _, R, S = w.shape
    P = (H + 2 * padding - R) // stride + 1
    Q = (W + 2 * padding - S) // stride + 1
    y = torch.empty(N, K, P, Q, device=x.device, dtype=torch.float16)
    grid = (N, triton.cdiv(P * Q, 64), triton.cdiv(K, 64))
    direct_conv[grid](x, w, y, C, H, W, K, P, Q, R, S, stride, padding, *x.stride(), *w.stride(), *y.stride(),
                      BLOCK_PQ=64, BLOCK_K=64)
    return y
