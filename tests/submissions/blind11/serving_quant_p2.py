# drill: quant-matmul
# expect: pass
# blind round 11 (2026-12-02, seen half): AWQ-triton / vLLM split-K style: even/odd columns of A via tl.split(reshape), sign extension by int3
import torch
import triton
import triton.language as tl


@triton.jit
def _w4a16_splitk_kernel(a_ptr, w_ptr, s_ptr, c_ptr, M, N, K,
                         stride_am, stride_ak, stride_wk, stride_wn, stride_sg, stride_sn, stride_cm, stride_cn,
                         GROUP_SIZE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                         BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    offs_r = tl.arange(0, BLOCK_K // 2)
    m_ok = offs_m < M
    n_ok = offs_n < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(pid_k * BLOCK_K, K, BLOCK_K * SPLIT_K):
        k = k0 + offs_k
        r = k0 // 2 + offs_r
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + k[None, :] * stride_ak,
                    mask=m_ok[:, None] & (k[None, :] < K), other=0.0)
        a_even, a_odd = tl.split(tl.reshape(a, (BLOCK_M, BLOCK_K // 2, 2)))
        packed = tl.load(w_ptr + r[:, None] * stride_wk + offs_n[None, :] * stride_wn,
                         mask=(r[:, None] < K // 2) & n_ok[None, :], other=0)
        bits = packed.to(tl.int32)
        q_even = (bits << 28) >> 28
        q_odd = (bits << 24) >> 28
        g = k0 // GROUP_SIZE
        scale = tl.load(s_ptr + g * stride_sg + offs_n * stride_sn, mask=n_ok, other=0.0)
        acc = tl.dot(a_even, q_even.to(tl.float16) * scale[None, :], acc)
        acc = tl.dot(a_odd, q_odd.to(tl.float16) * scale[None, :], acc)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    c_mask = m_ok[:, None] & n_ok[None, :]
    if SPLIT_K == 1:
        tl.store(c_ptrs, acc, mask=c_mask)
    else:
        tl.atomic_add(c_ptrs, acc, mask=c_mask)


@triton.jit
def _cast_kernel(src_ptr, dst_ptr, numel, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < numel
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=ok).to(tl.float16), mask=ok)


def matmul_w4a16(a: torch.Tensor, w_packed: torch.Tensor, scales: torch.Tensor, group_size: int = 128) -> torch.Tensor:
    M, K = a.shape
    assert w_packed.shape[0] * 2 == K and K % group_size == 0
    N = w_packed.shape[1]
    if M <= 16:
        BLOCK_M, BLOCK_N, BLOCK_K, SPLIT_K = 16, 64, 64, 4
    else:
        BLOCK_M, BLOCK_N, BLOCK_K, SPLIT_K = 32, 32, 64, 1
    BLOCK_K = min(BLOCK_K, group_size)
    SPLIT_K = max(1, min(SPLIT_K, K // BLOCK_K))
    acc32 = (torch.zeros if SPLIT_K > 1 else torch.empty)((M, N), device=a.device, dtype=torch.float32)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N), SPLIT_K)
    _w4a16_splitk_kernel[grid](a, w_packed, scales, acc32, M, N, K,
                               a.stride(0), a.stride(1), w_packed.stride(0), w_packed.stride(1),
                               scales.stride(0), scales.stride(1), acc32.stride(0), acc32.stride(1),
                               GROUP_SIZE=group_size, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                               SPLIT_K=SPLIT_K, num_warps=4)
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    _cast_kernel[(triton.cdiv(M * N, 1024),)](acc32, c, M * N, BLOCK=1024)
    return c
