# drill: matmul-epilogue
# expect: pass
# style: Inductor mm template (torch/_inductor/kernel/mm.py, triton_tem_fused_addmm_relu_0 as printed by TORCH_LOGS=output_code)
# why: correct. Inductor's wrap-around loads (rm % M, rn % N with max_contiguous/multiple_of hints) keep every A/B load in bounds without an M/N mask; the K tail is masked because EVEN_K is False; the epilogue reads in_ptr2 with xindex = idx_n (bias broadcast over rows) and takes triton_helpers.maximum(0, tmp) spelled as tl.maximum. Interpreter: all shapes (tails, transposed a/b, 1x1x1) within fp16 tolerance, one launch, only M*N*2 bytes stored; compiles for sm_90.
import torch
import triton
import triton.language as tl


@triton.jit
def triton_tem_fused_addmm_relu_0(arg_A, arg_B, in_ptr2, out_ptr1, M, N, K,
                                  stride_am, stride_ak, stride_bk, stride_bn,
                                  GROUP_M: tl.constexpr, EVEN_K: tl.constexpr, ALLOW_TF32: tl.constexpr,
                                  ACC_TYPE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                  BLOCK_K: tl.constexpr):
    A = arg_A
    B = arg_B
    # based on triton.ops.matmul
    pid = tl.program_id(0)
    grid_m = (M + BLOCK_M - 1) // BLOCK_M
    grid_n = (N + BLOCK_N - 1) // BLOCK_N

    # re-order program ID for better L2 performance
    width = GROUP_M * grid_n
    group_id = pid // width
    group_size = min(grid_m - group_id * GROUP_M, GROUP_M)
    pid_m = group_id * GROUP_M + (pid % group_size)
    pid_n = (pid % width) // (group_size)

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    if (stride_am == 1 and stride_ak == M) or (stride_am == K and stride_ak == 1):
        ram = tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M), BLOCK_M)
    else:
        ram = rm % M
    if (stride_bk == 1 and stride_bn == K) or (stride_bk == N and stride_bn == 1):
        rbn = tl.max_contiguous(tl.multiple_of(rn % N, BLOCK_N), BLOCK_N)
    else:
        rbn = rn % N
    rk = tl.arange(0, BLOCK_K)
    A = A + (ram[:, None] * stride_am + rk[None, :] * stride_ak)
    B = B + (rk[:, None] * stride_bk + rbn[None, :] * stride_bn)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC_TYPE)
    for k in range(K, 0, -BLOCK_K):
        if EVEN_K:
            a = tl.load(A)
            b = tl.load(B)
        else:
            a = tl.load(A, mask=rk[None, :] < k, other=0.)
            b = tl.load(B, mask=rk[:, None] < k, other=0.)
        acc += tl.dot(a, b, allow_tf32=ALLOW_TF32)
        A += BLOCK_K * stride_ak
        B += BLOCK_K * stride_bk

    # rematerialize rm and rn to save registers
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    idx_m = rm[:, None]
    idx_n = rn[None, :]
    mask = (idx_m < M) & (idx_n < N)

    # inductor generates a suffix
    xindex = idx_n + (N * idx_m)
    tmp0 = tl.load(in_ptr2 + (tl.broadcast_to(idx_n, acc.shape)), mask, eviction_policy='evict_last').to(tl.float32)
    tmp1 = acc + tmp0
    tmp2 = tl.full([1, 1], 0, tl.int32)
    tmp3 = tl.maximum(tmp2, tmp1)
    tl.store(out_ptr1 + (tl.broadcast_to(xindex, acc.shape)), tmp3, mask)


def matmul_bias_relu(a, b, bias):
    M, K = a.shape
    _, N = b.shape
    buf1 = torch.empty_strided((M, N), (N, 1), device=a.device, dtype=torch.float16)
    meta = dict(GROUP_M=8, EVEN_K=K % 32 == 0, ALLOW_TF32=False, ACC_TYPE=tl.float32,
                BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    grid = (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]), 1, 1)
    triton_tem_fused_addmm_relu_0[grid](a, b, bias, buf1, M, N, K,
                                        a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                        num_stages=3, num_warps=4, **meta)
    return buf1
