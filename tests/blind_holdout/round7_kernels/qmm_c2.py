# drill: quant-matmul
"""A 4-bit weight GEMM (W4A16): C = A @ dequant(W) with the dequantisation inside the K loop.

`matmul_w4a16(a, w_packed, scales, group_size=128)`: a (M, K) float16; w_packed (K // 2, N) uint8 holding signed
int4 weights two per byte (low nibble = even k, high nibble = odd k, values -8..7 in two's complement); scales
(K // group_size, N) float16, one per group of group_size rows of K and output column; returns c (M, N) float16,
accumulated in float32. K is always a whole number of groups: a partial last group does not exist (K may still
not be a multiple of BLOCK_K). Four holes:
- unpack:      the nibble of w[k, n] from its byte: shift, mask, sign;
- group-scale: the scale of (k's group, n), inside the K loop;
- mask:        the M and N edges and the K tail;
- grid:        one program per (BLOCK_M, BLOCK_N) tile of C.
The grader uses M = 1 (a decode GEMV), 16, 37, 130; N = 48, 72, 100, 129; K = 256 and 384 with group_size 128,
160 with group_size 32 (a K tail past BLOCK_K = 64); and a w_packed that is a transposed view. Stuck? `drill hint quant-matmul`.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def w4a16_kernel(a_ptr, w_ptr, s_ptr, c_ptr, M, N, K,
                 stride_am, stride_ak, stride_wk, stride_wn, stride_sg, stride_sn, stride_cm, stride_cn,
                 GROUP_SIZE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + offs_k
        a_mask, w_mask = (offs_m[:, None] < M) & (k[None, :] < K), (k[:, None] < K) & (offs_n[None, :] < N)
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + k[None, :] * stride_ak, mask=a_mask, other=0.0)
        packed = tl.load(w_ptr + (k[:, None] // 2) * stride_wk + offs_n[None, :] * stride_wn, mask=w_mask, other=0)
        q = ((packed.to(tl.int32) >> ((k[:, None] % 2) * 4)) & 0xF) - (((packed.to(tl.int32) >> ((k[:, None] % 2) * 4)) & 0x8) << 1)
        scale = tl.load(s_ptr + offs_n[None, :] * stride_sn, mask=offs_n[None, :] < N, other=0.0)
        w = (q.to(tl.float32) * scale.to(tl.float32)).to(tl.float16)
        acc = tl.dot(a, w, acc)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def matmul_w4a16(a: torch.Tensor, w_packed: torch.Tensor, scales: torch.Tensor, group_size: int = 128) -> torch.Tensor:
    M, K = a.shape
    assert w_packed.shape[0] * 2 == K and K % group_size == 0, "K must be 2 x w_packed rows and whole groups"
    N = w_packed.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    # The tiles by M, as real W4A16 kernels pick them (H200, N = K = 8192: docs/serving.md). M <= 16 is a decode
    # GEMV: no tall tile, the weight bytes dominate. Larger M is a GEMM: 128-row tiles reuse each dequantised
    # weight tile 128 times, and a deeper pipeline (num_stages) hides the loads behind the dots.
    if M <= 16:
        BLOCK_M, BLOCK_N, BLOCK_K, warps, stages = 16, 64, 64, 4, 3
    elif M < 2048:
        BLOCK_M, BLOCK_N, BLOCK_K, warps, stages = 128, 128, 64, 4, 4
    else:
        BLOCK_M, BLOCK_N, BLOCK_K, warps, stages = 128, 256, 64, 8, 3
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    w4a16_kernel[grid](a, w_packed, scales, c, M, N, K,
                       a.stride(0), a.stride(1), w_packed.stride(0), w_packed.stride(1),
                       scales.stride(0), scales.stride(1), c.stride(0), c.stride(1),
                       GROUP_SIZE=group_size, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                       num_warps=warps, num_stages=stages)
    return c
