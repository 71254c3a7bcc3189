# drill: conv2d
"""Reference solution for `conv2d` — a 2-D convolution as an implicit GEMM on tensor cores.

What it shows (the structure of the implicit-GEMM convolutions in public Triton repos and of cuDNN's IMPLICIT_GEMM):
- the GEMM: rows are output pixels m = (n, p, q) (GEMM-M = N·P·Q), columns output channels k (GEMM-N = K), and the
  reduction runs over (r, s, c) (GEMM-K = R·S·C); the im2col matrix is never written: each tile of it is loaded
  straight from x at its own strides (any memory format: NCHW or channels-last);
- the output index (n, p, q) of each row, and where its window starts (p·stride − padding, q·stride − padding),
  are computed once per program, outside the K loop;
- output pixel (p, q) reads input pixel (h, w) = (p·stride − padding + r, q·stride − padding + s): the stride
  multiplies the output index, never the filter offset;
- padding is a mask: a tap with h or w outside the image reads 0 (other=0.0), so no padded copy of x exists;
- one K loop over R·S·ceil(C / BLOCK_C) steps, the tap (r, s) outside and the channel block inside: with a
  channels-last x each A tile row is BLOCK_C contiguous channels (one wide load), and Triton's software pipeliner
  sees one long loop to overlap loads with tl.dot (num_stages);
- w is re-laid once per call as (R, S, C, K) (1.2 MB at 256 x 256 x 3 x 3), so a B tile row is BLOCK_N contiguous
  output channels. This is most of the speed: read at w's own (K, C, R, S) strides, every B tile is a gather, and
  the same kernel took 1249 us instead of 330 us on the H200 (benchmarks/conv_candidates.py);
- an NCHW x at a layer's size is re-laid channels-last once, as cuDNN does with NCHW: its C stride (H·W) would make
  each A row a gather too (not timed on the H200: the gate's x is channels-last);
- programs are grouped along M (GROUP_M row tiles walk the column tiles together, so their A and B tiles are
  reused while they sit in L2); at K = 256 with BLOCK_N = 256 there is one column tile and it changes nothing
  (270.0 vs 270.5 us without it);
- y is written at its own strides in x's memory format, as F.conv2d does.
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
    n = offs_m // (P * Q)
    pq = offs_m % (P * Q)
    p = pq // Q
    q = pq % Q
    h0 = p * stride - padding  # the top-left corner of each row's window
    w0 = q * stride - padding
    x_n = x_ptr + n * stride_xn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    c_blocks = tl.cdiv(C, BLOCK_C)
    # GEMM-K: the taps (r, s) outside, the channel blocks inside, as one loop.
    for t in range(0, R * S * c_blocks):
        rs = t // c_blocks
        c = (t % c_blocks) * BLOCK_C + offs_c
        r = rs // S
        s = rs % S
        h = h0 + r  # im2col: the input pixel this tap reads
        w = w0 + s
        inside = m_ok & (h >= 0) & (h < H) & (w >= 0) & (w < W)  # a padding tap reads 0
        a = tl.load((x_n + h * stride_xh + w * stride_xw)[:, None] + c[None, :] * stride_xc,
                    mask=inside[:, None] & (c[None, :] < C), other=0.0)
        b = tl.load(w_ptr + r * stride_wr + s * stride_ws + c[:, None] * stride_wc + offs_k[None, :] * stride_wk,
                    mask=(c[:, None] < C) & (offs_k[None, :] < K), other=0.0)
        acc = tl.dot(a, b, acc)
    y_ptrs = y_ptr + (n * stride_yn + p * stride_yp + q * stride_yq)[:, None] + offs_k[None, :] * stride_yk
    tl.store(y_ptrs, acc.to(tl.float16), mask=m_ok[:, None] & (offs_k[None, :] < K))


def _config(M: int, K: int, C: int) -> dict:
    """Tiles by shape. A real layer gets tensor-core tiles: H200, (32, 256, 56, 56) -> 256, 3x3, padding 1,
    channels-last (benchmarks/conv_candidates.py, docs/h200/conv_candidates_batch1.txt): 128x256x64 with 8 warps and
    3 stages ran in 270 us, 0.67x cuDNN; 128x128x64 in 330 us (0.55x). Small problems get small tiles, where a
    128-row tile would be mostly masked lanes (which Triton's interpreter pays for one by one)."""
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
