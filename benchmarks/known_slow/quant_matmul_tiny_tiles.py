# drill: quant-matmul
# A known-slow W4A16 kernel for benchmarks/serving.py and the gate's calibration: the first reference (a scale
# tile per step, no split-K) with 16x16x16 tiles, one warp and one stage. Correct; on the H200 (M = 16,
# N = K = 8192) 306-315 µs = 0.14-0.16 x cuBLAS on the float16 weight (round 5: 313 µs, 0.143-0.145 x in 20 runs),
# under the 0.6 x gate (docs/serving.md).
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
    BLOCK_M, BLOCK_N, BLOCK_K = 16, 16, 16  # tiny tiles: many more programs, short loads, no pipelining
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    w4a16_kernel[grid](a, w_packed, scales, c, M, N, K,
                       a.stride(0), a.stride(1), w_packed.stride(0), w_packed.stride(1),
                       scales.stride(0), scales.stride(1), c.stride(0), c.stride(1),
                       GROUP_SIZE=group_size, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                       num_warps=1, num_stages=1)
    return c
