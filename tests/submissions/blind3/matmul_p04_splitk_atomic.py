# drill: matmul
# expect: pass
# style: split-K GEMM (as in fast small-M kernels / triton.ops.matmul SPLIT_K): 3-D grid, tl.atomic_add into a zeroed fp32 buffer, then .half()
# why: correct. Each pid_z sums its own contiguous range of BLOCK_K steps (the K tail masked, other=0), atomically adds its fp32 partial tile into a torch.zeros buffer, and the wrapper returns buf.to(float16), a new contiguous tensor; interp matches float64 in all layouts; compiles for sm_90.
import torch
import triton
import triton.language as tl


@triton.jit
def splitk_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  K_STEPS_PER_SPLIT,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    k_first = pid_k * K_STEPS_PER_SPLIT
    for step in range(k_first, k_first + K_STEPS_PER_SPLIT):
        kk = step * BLOCK_K + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.atomic_add(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    K2, N = b.shape
    assert K == K2
    BLOCK_M, BLOCK_N, BLOCK_K, SPLIT_K = 32, 32, 32, 4
    k_steps = triton.cdiv(K, BLOCK_K)
    steps_per_split = triton.cdiv(k_steps, SPLIT_K)
    split = triton.cdiv(k_steps, steps_per_split)
    acc = torch.zeros((M, N), device=a.device, dtype=torch.float32)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N), split)
    splitk_kernel[grid](a, b, acc, M, N, K,
                        a.stride(0), a.stride(1), b.stride(0), b.stride(1), acc.stride(0), acc.stride(1),
                        steps_per_split, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return acc.to(torch.float16)
