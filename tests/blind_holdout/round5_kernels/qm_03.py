# drill: quant-matmul
import torch
import triton
import triton.language as tl


@triton.jit
def w4a16_splitk_kernel(a_ptr, w_ptr, s_ptr, acc_ptr, M, N, K,
                        stride_am, stride_ak, stride_wk, stride_wn, stride_sg, stride_sn,
                        GROUP_SIZE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    # split-K for the skinny decode GEMM: program (m, n, z) sums the K blocks z, z + SPLIT_K, ...
    # and adds its partial tile into a float32 accumulator with atomics
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_z = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    m_ok = offs_m < M
    n_ok = offs_n < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(pid_z * BLOCK_K, K, BLOCK_K * SPLIT_K):
        k = k0 + offs_k
        k_ok = k < K
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + k[None, :] * stride_ak,
                    mask=m_ok[:, None] & k_ok[None, :], other=0.0)
        wmask = k_ok[:, None] & n_ok[None, :]
        byte = tl.load(w_ptr + (k[:, None] // 2) * stride_wk + offs_n[None, :] * stride_wn, mask=wmask, other=0)
        nib = (byte.to(tl.int32) >> ((k[:, None] & 1) * 4)) & 15
        q = (nib << 28) >> 28  # sign-extend the 4-bit value through the int32's top bits
        sc = tl.load(s_ptr + (k[:, None] // GROUP_SIZE) * stride_sg + offs_n[None, :] * stride_sn, mask=wmask,
                     other=0.0)
        w = (q.to(tl.float32) * sc.to(tl.float32)).to(tl.float16)
        acc = tl.dot(a, w, acc)
    tl.atomic_add(acc_ptr + offs_m[:, None] * N + offs_n[None, :], acc, mask=m_ok[:, None] & n_ok[None, :])


@triton.jit
def cast_out_kernel(acc_ptr, c_ptr, M, N, stride_cm, stride_cn, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < M * N
    v = tl.load(acc_ptr + offs, mask=ok, other=0.0)
    tl.store(c_ptr + (offs // N) * stride_cm + (offs % N) * stride_cn, v.to(tl.float16), mask=ok)


def matmul_w4a16(a: torch.Tensor, w_packed: torch.Tensor, scales: torch.Tensor, group_size: int = 128) -> torch.Tensor:
    M, K = a.shape
    assert w_packed.shape[0] * 2 == K and K % group_size == 0
    N = w_packed.shape[1]
    BLOCK_M = 16 if M <= 16 else 64
    BLOCK_N, BLOCK_K = 64, 64
    SPLIT_K = max(1, min(4, triton.cdiv(K, BLOCK_K)))
    acc = torch.zeros((M, N), device=a.device, dtype=torch.float32)
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N), SPLIT_K)
    w4a16_splitk_kernel[grid](a, w_packed, scales, acc, M, N, K,
                              a.stride(0), a.stride(1), w_packed.stride(0), w_packed.stride(1),
                              scales.stride(0), scales.stride(1),
                              GROUP_SIZE=group_size, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                              SPLIT_K=SPLIT_K, num_warps=4)
    cast_out_kernel[(triton.cdiv(M * N, 1024),)](acc, c, M, N, c.stride(0), c.stride(1), BLOCK=1024)
    return c
