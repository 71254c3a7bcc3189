# drill: matmul
# expect: wrong-values
# also-ok: stale-output
# style: autotuned split-K (triton.ops.matmul / tutorial 03 autotune configs with SPLIT_K) with reset_to_zero forgotten
# why: the kernel atomically adds partial tiles into a torch.zeros fp32 buffer, which is right for one launch, but @triton.autotune benchmarks every config on the first call for a new (M, N, K) key by launching the kernel repeatedly on the same buffer, with no reset_to_zero=['c_ptr'], so the first call per shape returns (number of benchmark launches + 1) times the product. Later calls for an already-tuned shape are right. Evidence: interp with a one-run do_bench: first call of every shape is ~4x too large (3 configs + the real launch), no OOB lane; on a GPU do_bench would run each config many times, so the error would be far larger (not run on a GPU here). Compiles for sm_90.
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({'BLOCK_M': 64, 'BLOCK_N': 64, 'BLOCK_K': 32, 'SPLIT_K': 2}, num_warps=4, num_stages=3),
        triton.Config({'BLOCK_M': 32, 'BLOCK_N': 64, 'BLOCK_K': 32, 'SPLIT_K': 4}, num_warps=4, num_stages=3),
        triton.Config({'BLOCK_M': 64, 'BLOCK_N': 32, 'BLOCK_K': 64, 'SPLIT_K': 1}, num_warps=2, num_stages=4),
    ],
    key=['M', 'N', 'K'],
)
@triton.jit
def matmul_splitk_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                         stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         SPLIT_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    A = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    B = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K * SPLIT_K)):
        k_remaining = K - k * (BLOCK_K * SPLIT_K)
        a = tl.load(A, mask=(rm[:, None] < M) & (rk[None, :] < k_remaining), other=0.)
        b = tl.load(B, mask=(rk[:, None] < k_remaining) & (rn[None, :] < N), other=0.)
        acc += tl.dot(a, b)
        A += BLOCK_K * SPLIT_K * stride_ak
        B += BLOCK_K * SPLIT_K * stride_bk
    C = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.atomic_add(C, acc, mask=mask)


def matmul(a, b):
    M, K = a.shape
    K2, N = b.shape
    assert K == K2
    c = torch.zeros((M, N), device=a.device, dtype=torch.float32)
    grid = lambda META: (triton.cdiv(M, META['BLOCK_M']), triton.cdiv(N, META['BLOCK_N']), META['SPLIT_K'])
    matmul_splitk_kernel[grid](a, b, c, M, N, K,
                               a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
    return c.to(torch.float16)
