# drill: matmul-epilogue
# expect: fusion
# style: nervous candidate ("one kernel, but I store the product, barrier, then do the epilogue on what I stored")
# why: a single launch, but the kernel stores a @ b (fp16) into the output tile, tl.debug_barrier(), loads the same
# tile back, adds bias, relu, and stores again: the (M, N) product makes a round trip through global memory
# (interpreter: every output element stored twice, 2*M*N*2 bytes stored). Values are right within fp16 tolerance on
# all shapes (the intermediate is rounded to fp16 once, like eager). On a GPU the barrier only orders one CTA's own
# threads and the tile is private to the CTA, so values stay right there too. Compiles for sm_90.
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_bias_relu_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K,
                            stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptrs, acc.to(tl.float16), mask=c_mask)
    tl.debug_barrier()

    # epilogue: read the product back, add bias, relu
    c = tl.load(c_ptrs, mask=c_mask, other=0.0).to(tl.float32)
    bias = tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0).to(tl.float32)
    c = tl.maximum(c + bias[None, :], 0.0)
    tl.store(c_ptrs, c.to(tl.float16), mask=c_mask)


def matmul_bias_relu(a, b, bias):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 64
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
    matmul_bias_relu_kernel[grid](a, b, bias, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                  c.stride(0), c.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                                  num_warps=4)
    return c
