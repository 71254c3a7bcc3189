import torch
import triton
import triton.language as tl


@triton.jit
def matmul_4bit_kernel(
    a_ptr, b_ptr, c_ptr, scales_ptr,
    M, N, K,
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    stride_scales_g, stride_scales_n,
    groupsize,
    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
):
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
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + (offs_k[:, None] // 2) * stride_bk + offs_bn[None, :] * stride_bn
    scales_ptrs = scales_ptr + offs_bn[None, :] * stride_scales_n
    shifter = (offs_k % 2) * 4

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        k_idx = k * BLOCK_SIZE_K + offs_k
        k_ok = k_idx < K
        a = tl.load(a_ptrs, mask=(offs_am[:, None] < M) & k_ok[None, :], other=0.0)
        b = tl.load(b_ptrs, mask=k_ok[:, None] & (offs_bn[None, :] < N), other=0)
        g_idx = k_idx // groupsize
        scales = tl.load(scales_ptrs + g_idx[:, None] * stride_scales_g,
                         mask=k_ok[:, None] & (offs_bn[None, :] < N), other=0.0)

        b = (b.to(tl.int32) >> shifter[:, None]) & 0xF
        b = b - 8
        b = b.to(tl.float16) * scales

        accumulator += tl.dot(a, b)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += (BLOCK_SIZE_K // 2) * stride_bk

    c = accumulator.to(tl.float16)
    c_ptrs = c_ptr + offs_am[:, None] * stride_cm + offs_bn[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(offs_am[:, None] < M) & (offs_bn[None, :] < N))


def matmul_w4a16(a: torch.Tensor, w_packed: torch.Tensor, scales: torch.Tensor, group_size: int = 128) -> torch.Tensor:
    M, K = a.shape
    assert w_packed.shape[0] * 2 == K and K % group_size == 0
    N = w_packed.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    BLOCK_SIZE_M = 16 if M <= 16 else 32
    BLOCK_SIZE_N = 32
    BLOCK_SIZE_K = 64
    grid = (triton.cdiv(M, BLOCK_SIZE_M) * triton.cdiv(N, BLOCK_SIZE_N),)
    matmul_4bit_kernel[grid](
        a, w_packed, c, scales,
        M, N, K,
        a.stride(0), a.stride(1),
        w_packed.stride(0), w_packed.stride(1),
        c.stride(0), c.stride(1),
        scales.stride(0), scales.stride(1),
        group_size,
        BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N, BLOCK_SIZE_K=BLOCK_SIZE_K, GROUP_SIZE_M=8,
        num_warps=4, num_stages=2,
    )
    return c
