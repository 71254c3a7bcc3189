# drill: conv2d
"""A 2-D convolution with padding and stride, as an implicit GEMM on tensor cores.

`conv2d(x, w, stride=1, padding=0)`: x (N, C, H, W) float16 in any memory format (NCHW or channels-last), w (K, C,
R, S) float16; returns y (N, K, P, Q) float16 with P = (H + 2·padding - R) // stride + 1 (Q likewise), float32
accumulation, equal to F.conv2d(x, w, stride=stride, padding=padding). The GEMM: rows are output pixels (n, p, q)
(GEMM-M = N·P·Q), columns output channels (GEMM-N = K), the reduction runs over (r, s, c) (GEMM-K = C·R·S), and the
im2col matrix is never written: its tiles are loaded from x directly. Four holes:
- output-index: which output pixel (n, p, q) a GEMM row is;
- im2col:       the input pixel (h, w) that output pixel (p, q) reads for filter tap (r, s);
- padding:      which of those reads are inside the image (a padding tap reads 0);
- k-loop:       one loop over every (tap, channel block) step, and the accumulation.
The K loop walks the taps (r, s) outside and the channels inside, so a channels-last x gives A tiles whose rows are
BLOCK_C contiguous channels; the wrapper lays w out as (R, S, C, K) once, so B tiles are rows of contiguous channels.
The grader uses 1x1, 3x3 and 5x5 filters, stride 1 and 2, padding 0, 1 and 2, C and K that are not multiples of a
block, and channels-last as well as contiguous x. Stuck? `drill hint conv2d`.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def conv2d_kernel(x_ptr, w_ptr, y_ptr, N, C, H, W, K, P, Q, R, S, stride, padding,
                  stride_xn, stride_xc, stride_xh, stride_xw,
                  stride_wr, stride_ws, stride_wc, stride_wk,
                  stride_yn, stride_yk, stride_yp, stride_yq,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_C: tl.constexpr, GROUP_M: tl.constexpr):
    # Grouped program order: GROUP_M row tiles walk the column tiles together (their B tiles stay in L2).
    pid = tl.program_id(0)
    num_m = tl.cdiv(N * P * Q, BLOCK_M)
    num_n = tl.cdiv(K, BLOCK_N)
    first_m = (pid // (GROUP_M * num_n)) * GROUP_M
    group_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % (GROUP_M * num_n)) % group_m
    pid_n = (pid % (GROUP_M * num_n)) // group_m
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)  # output pixels (n, p, q), flattened
    offs_k = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)  # output channels
    offs_c = tl.arange(0, BLOCK_C)
    m_ok = offs_m < N * P * Q
    # The output index, once per program.
    n, p, q = (offs_m // (P * Q)), (offs_m % (P * Q)) // Q, offs_m % Q
    x_n = x_ptr + n * stride_xn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    c_blocks = tl.cdiv(C, BLOCK_C)
    # GEMM-K: the taps (r, s) outside, the channel blocks inside, as one loop.
    for t in range(0, R * S * c_blocks):
        rs = t // c_blocks
        c = (t % c_blocks) * BLOCK_C + offs_c
        r = rs // S
        s = rs % S
        h, w = (p + r) * stride - padding, (q + s) * stride - padding
        inside = m_ok & (h >= 0) & (h < H) & (w >= 0) & (w < W)
        a = tl.load((x_n + h * stride_xh + w * stride_xw)[:, None] + c[None, :] * stride_xc,
                    mask=inside[:, None] & (c[None, :] < C), other=0.0)
        b = tl.load(w_ptr + r * stride_wr + s * stride_ws + c[:, None] * stride_wc + offs_k[None, :] * stride_wk,
                    mask=(c[:, None] < C) & (offs_k[None, :] < K), other=0.0)
        acc = tl.dot(a, b, acc)
    y_ptrs = y_ptr + (n * stride_yn + p * stride_yp + q * stride_yq)[:, None] + offs_k[None, :] * stride_yk
    tl.store(y_ptrs, acc.to(tl.float16), mask=m_ok[:, None] & (offs_k[None, :] < K))


def _config(M: int, K: int, C: int) -> dict:
    """Tiles by shape: tensor-core tiles for a real layer (timed on an H200), small ones for small problems."""
    if M >= 4096 and K >= 128 and C >= 64:
        return dict(BLOCK_M=128, BLOCK_N=256 if K >= 256 else 128, BLOCK_C=64, GROUP_M=8, num_warps=8, num_stages=3)
    return dict(BLOCK_M=64, BLOCK_N=32, BLOCK_C=64 if C >= 64 else 16, GROUP_M=8, num_warps=4, num_stages=3)


def conv2d(x: torch.Tensor, w: torch.Tensor, stride: int = 1, padding: int = 0) -> torch.Tensor:
    N, C, H, W = x.shape
    K, C2, R, S = w.shape
    assert C == C2, "x and w disagree on C"
    P = (H + 2 * padding - R) // stride + 1
    Q = (W + 2 * padding - S) // stride + 1
    channels_last = x.is_contiguous(memory_format=torch.channels_last) and not x.is_contiguous()
    y = torch.empty((N, K, P, Q), device=x.device, dtype=torch.float16,
                    memory_format=torch.channels_last if channels_last else torch.contiguous_format)
    cfg = _config(N * P * Q, K, C)
    if not channels_last and cfg["BLOCK_M"] >= 128:
        x = x.contiguous(memory_format=torch.channels_last)  # C contiguous: each A row is one wide load
    w_rsck = w.permute(2, 3, 1, 0).contiguous()  # (R, S, C, K): each B row is BLOCK_N contiguous channels
    grid = (triton.cdiv(N * P * Q, cfg["BLOCK_M"]) * triton.cdiv(K, cfg["BLOCK_N"]),)
    conv2d_kernel[grid](x, w_rsck, y, N, C, H, W, K, P, Q, R, S, stride, padding,
                        *x.stride(), *w_rsck.stride(), *y.stride(), **cfg)
    return y
