# drill: matmul-epilogue
import torch
import triton
import triton.language as tl
from torch._inductor.runtime import triton_helpers
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math


@triton.jit
def triton_tem_fused_add_relu_0(in_ptr0, arg_A, arg_B, out_ptr1, M, N, K,
                                stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                                EVEN_K : tl.constexpr, USE_FAST_ACCUM : tl.constexpr, ACC_TYPE : tl.constexpr,
                                BLOCK_M : tl.constexpr, BLOCK_N : tl.constexpr, BLOCK_K : tl.constexpr,
                                GROUP_M : tl.constexpr, ALLOW_TF32 : tl.constexpr):
    INDEX_DTYPE : tl.constexpr = tl.int32
    A = arg_A
    B = arg_B
    if M * N == 0:
        # early exit due to zero-size input(s)
        return
    # based on triton.ops.matmul
    pid = tl.program_id(0).to(INDEX_DTYPE)
    grid_m = (M + BLOCK_M - 1) // BLOCK_M
    grid_n = (N + BLOCK_N - 1) // BLOCK_N
    # re-order program ID for better L2 performance
    width = GROUP_M * grid_n
    group_id = pid // width
    group_size = min(grid_m - group_id * GROUP_M, GROUP_M)
    pid_m = group_id * GROUP_M + (pid % group_size)
    pid_n = (pid % width) // (group_size)
    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(INDEX_DTYPE)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(INDEX_DTYPE)
    if ((stride_am == 1 and stride_ak == M) or (stride_am == K and stride_ak == 1)) and (M >= BLOCK_M and K > 1):
        offs_a_m = tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M), BLOCK_M)
    else:
        offs_a_m = rm % M
    if ((stride_bk == 1 and stride_bn == K) or (stride_bk == N and stride_bn == 1)) and (N >= BLOCK_N and K > 1):
        offs_b_n = tl.max_contiguous(tl.multiple_of(rn % N, BLOCK_N), BLOCK_N)
    else:
        offs_b_n = rn % N
    offs_k = tl.arange(0, BLOCK_K).to(INDEX_DTYPE)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC_TYPE)
    for k_idx in range(0, tl.cdiv(K, BLOCK_K)):
        a_mask = offs_k[None, :] < (K - k_idx * BLOCK_K)
        b_mask = offs_k[:, None] < (K - k_idx * BLOCK_K)
        a_k_idx_vals = offs_k[None, :] + (k_idx * BLOCK_K)
        b_k_idx_vals = offs_k[:, None] + (k_idx * BLOCK_K)
        idx_m = offs_a_m[:, None]
        idx_n = a_k_idx_vals
        xindex = stride_ak*idx_n + stride_am*idx_m
        a = tl.load(A + (xindex), mask=a_mask, other=0.0)
        idx_m = b_k_idx_vals
        idx_n = offs_b_n[None, :]
        xindex = stride_bn*idx_n + stride_bk*idx_m
        b = tl.load(B + (xindex), mask=b_mask, other=0.0)
        acc += tl.dot(a, b, allow_tf32=ALLOW_TF32, out_dtype=ACC_TYPE)
    # rematerialize rm and rn to save registers
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(INDEX_DTYPE)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(INDEX_DTYPE)
    idx_m = rm[:, None]
    idx_n = rn[None, :]
    mask = (idx_m < M) & (idx_n < N)
    # inductor generates a suffix
    xindex = stride_cn*idx_n + stride_cm*idx_m
    tmp0 = tl.load(in_ptr0 + (tl.broadcast_to(idx_n, [BLOCK_M, BLOCK_N])), mask, eviction_policy='evict_last').to(tl.float32)
    tmp1 = acc + tmp0
    tmp2 = tmp1.to(tl.float16)
    tmp3 = tmp2.to(tl.float32)
    tmp4 = tl.full([1], 0, tl.int32)
    tmp5 = triton_helpers.maximum(tmp4, tmp3)
    tl.store(out_ptr1 + (tl.broadcast_to(xindex, [BLOCK_M, BLOCK_N])), tmp5, mask)


def matmul_bias_relu(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    _, N = b.shape
    buf1 = torch.empty_strided((M, N), (N, 1), device=a.device, dtype=torch.float16)
    BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M = 16, 16, 64, 8
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N), 1, 1)
    triton_tem_fused_add_relu_0[grid](bias, a, b, buf1, M, N, K,
                                      a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                      buf1.stride(0), buf1.stride(1),
                                      EVEN_K=(K % BLOCK_K == 0), USE_FAST_ACCUM=False, ACC_TYPE=tl.float32,
                                      BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M,
                                      ALLOW_TF32=False, num_warps=4, num_stages=2)
    return buf1
