# drill: quant-matmul
"""Reference solution for `quant-matmul` — C = A @ dequant(W) with 4-bit weights and float16 activations (W4A16).

What it shows (the shape of GPTQ's and AWQ's Triton kernels, for this drill's packing):
- the weights stay packed in memory: w_packed[k // 2, n] holds w[k, n] in its low nibble for even k and its high
  nibble for odd k, two's complement (-8..7). Reading 4 bits per weight instead of 16 is the whole point: at small
  M the GEMM is a GEMV, memory-bound on the weight bytes;
- unpack in registers: shift by 4 * (k % 2), mask with 0xF, sign-extend (q ^ 8) - 8;
- one float16 scale per (group of group_size rows of K, output column n): scales[k // group_size, n], loaded inside
  the K loop, since a BLOCK_K step may cross into the next group; the weight tile is dequantised to float16 and fed
  to tl.dot with a float32 accumulator;
- masks on the M and N edges and the K tail (K is a multiple of group_size, but not necessarily of BLOCK_K).
H200 (torch 2.11, triton 3.6), N = K = 8192, group 128: 101 us at M = 1 and 104 us at M = 16 (0.46 x cuBLAS on the
float16 weight, 14 x the int4 bytes floor), 2.58 ms at M = 4096 (0.28 x). Not yet faster than cuBLAS: the
dequantisation per weight element (each k reads its byte, a (BLOCK_K, BLOCK_N) tile of scales per step, shifts and
converts) costs more than the 4x fewer bytes save; split-K did not help at M = 1 (docs/serving.md).
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
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + k[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (k[None, :] < K), other=0.0)
        w_mask = (k[:, None] < K) & (offs_n[None, :] < N)
        packed = tl.load(w_ptr + (k[:, None] // 2) * stride_wk + offs_n[None, :] * stride_wn, mask=w_mask, other=0)
        q = (packed.to(tl.int32) >> ((k[:, None] % 2) * 4)) & 0xF  # even k: low nibble, odd k: high nibble
        q = (q ^ 8) - 8                                              # two's complement: 8..15 -> -8..-1
        scale = tl.load(s_ptr + (k[:, None] // GROUP_SIZE) * stride_sg + offs_n[None, :] * stride_sn,
                        mask=w_mask, other=0.0)
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
