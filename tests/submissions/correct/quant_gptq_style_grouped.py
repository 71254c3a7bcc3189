# drill: quant-matmul
# expect: pass
# also-ok: too-slow
# (CUDA only: correct, but 0.36x cuBLAS on the float16 weight in the H200's gate runs of 2026-12-01, under the 0.6x bar)
# GPTQ-triton style (rewritten for this packing): a 1-D grid with GROUP_SIZE_M swizzling, a shifter vector
# (k % 2) * 4, the scales row g_idx = k // groupsize read per K step, dequantised in float16 before tl.dot.
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_248_kernel(a_ptr, b_ptr, c_ptr, scales_ptr, M, N, K, groupsize,
                      stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn, stride_scales,
                      BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                      GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_bn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + ((offs_k[:, None] // 2) * stride_bk + offs_bn[None, :] * stride_bn)
    shifter = (offs_k % 2) * 4
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        kk = k * BLOCK_SIZE_K + offs_k
        g_idx = kk // groupsize
        a = tl.load(a_ptrs, mask=(offs_am[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptrs, mask=(kk[:, None] < K) & (offs_bn[None, :] < N), other=0).to(tl.int32)
        scales = tl.load(scales_ptr + offs_bn[None, :] + g_idx[:, None] * stride_scales,
                         mask=(kk[:, None] < K) & (offs_bn[None, :] < N), other=0.0)
        b = (b >> shifter[:, None]) & 0xF
        b = tl.where(b >= 8, b - 16, b)
        b = b.to(tl.float16) * scales
        accumulator += tl.dot(a, b)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += (BLOCK_SIZE_K // 2) * stride_bk
    c = accumulator.to(tl.float16)
    c_ptrs = c_ptr + stride_cm * offs_am[:, None] + stride_cn * offs_bn[None, :]
    tl.store(c_ptrs, c, mask=(offs_am[:, None] < M) & (offs_bn[None, :] < N))


def matmul_w4a16(a, w_packed, scales, group_size=128):
    M, K = a.shape
    N = w_packed.shape[1]
    scales = scales.contiguous()
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    BM, BN, BK = 32, 32, 32
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    matmul_248_kernel[grid](a, w_packed, c, scales, M, N, K, group_size,
                            a.stride(0), a.stride(1), w_packed.stride(0), w_packed.stride(1),
                            c.stride(0), c.stride(1), scales.stride(0),
                            BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK, GROUP_SIZE_M=8)
    return c
