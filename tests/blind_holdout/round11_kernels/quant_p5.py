import torch
import triton
import triton.language as tl


@triton.jit
def gptq_style_w4_kernel(
    a_ptr, b_ptr, scales_ptr, c_ptr,
    M, N, K,
    stride_am, stride_ak, stride_bk, stride_bn, stride_sg, stride_sn, stride_cm, stride_cn,
    groupsize: tl.constexpr,
    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_am = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_bn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    am = offs_am < M
    bn = offs_bn < N
    shifter = (offs_k & 1) * 4

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_SIZE_K):
        ks = k0 + offs_k
        kmask = ks < K
        a = tl.load(a_ptr + offs_am[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=am[:, None] & kmask[None, :], other=0.0)
        b = tl.load(b_ptr + (ks // 2)[:, None] * stride_bk + offs_bn[None, :] * stride_bn,
                    mask=kmask[:, None] & bn[None, :], other=0)
        g_idx = ks // groupsize
        scales = tl.load(scales_ptr + g_idx[:, None] * stride_sg + offs_bn[None, :] * stride_sn,
                         mask=kmask[:, None] & bn[None, :], other=0.0)
        nib = (b.to(tl.int32) >> shifter[:, None]) & 0xF
        q = tl.where(nib >= 8, nib - 16, nib)
        w = q.to(tl.float16) * scales
        accumulator += tl.dot(a, w)

    c_ptrs = c_ptr + offs_am[:, None] * stride_cm + offs_bn[None, :] * stride_cn
    tl.store(c_ptrs, accumulator.to(tl.float16), mask=am[:, None] & bn[None, :])


def matmul_w4a16(a: torch.Tensor, w_packed: torch.Tensor, scales: torch.Tensor, group_size: int = 128) -> torch.Tensor:
    M, K = a.shape
    assert w_packed.shape[0] * 2 == K and K % group_size == 0
    N = w_packed.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    BLOCK_SIZE_M = 16 if M <= 16 else 64
    BLOCK_SIZE_N = 32
    BLOCK_SIZE_K = 128
    grid = (triton.cdiv(M, BLOCK_SIZE_M), triton.cdiv(N, BLOCK_SIZE_N))
    gptq_style_w4_kernel[grid](
        a, w_packed, scales, c, M, N, K,
        a.stride(0), a.stride(1), w_packed.stride(0), w_packed.stride(1),
        scales.stride(0), scales.stride(1), c.stride(0), c.stride(1),
        groupsize=group_size,
        BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N, BLOCK_SIZE_K=BLOCK_SIZE_K,
        num_warps=4, num_stages=2,
    )
    return c
