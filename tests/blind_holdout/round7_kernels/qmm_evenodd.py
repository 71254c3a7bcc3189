# drill: quant-matmul
# GemLite-style W4A16: the packed tile is loaded once as (BLOCK_K // 2, BLOCK_N) bytes and never interleaved;
# A is read as its even and odd columns, so C += A_even @ W_lo + A_odd @ W_hi (two tl.dot per step).
import torch
import triton
import triton.language as tl


@triton.jit
def _dequant_nibble(b, shift: tl.constexpr):
    v = (b >> shift) & 0xF
    return tl.where(v > 7, v - 16, v)


@triton.jit
def gemv_gemm_w4_kernel(a_ptr, b_ptr, s_ptr, c_ptr, M, N, K,
                        stride_am, stride_ak, stride_bk, stride_bn, stride_sg, stride_sn, stride_cm, stride_cn,
                        GROUP_SIZE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    HALF_K: tl.constexpr = BLOCK_K // 2
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_j = tl.arange(0, HALF_K)  # packed rows: byte j holds k = 2j (low) and 2j + 1 (high)
    m_mask = offs_m < M
    n_mask = offs_n < N
    K2 = K // 2
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for j0 in range(0, K2, HALF_K):
        j = j0 + offs_j
        j_mask = j < K2
        b = tl.load(b_ptr + j[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=j_mask[:, None] & n_mask[None, :], other=0).to(tl.int32)
        # both k of byte j lie in the same group (group_size is even)
        s = tl.load(s_ptr + ((2 * j) // GROUP_SIZE)[:, None] * stride_sg + offs_n[None, :] * stride_sn,
                    mask=j_mask[:, None] & n_mask[None, :], other=0.0).to(tl.float32)
        w_lo = (_dequant_nibble(b, 0).to(tl.float32) * s).to(tl.float16)
        w_hi = (_dequant_nibble(b, 4).to(tl.float32) * s).to(tl.float16)
        a_even = tl.load(a_ptr + offs_m[:, None] * stride_am + (2 * j)[None, :] * stride_ak,
                         mask=m_mask[:, None] & j_mask[None, :], other=0.0)
        a_odd = tl.load(a_ptr + offs_m[:, None] * stride_am + (2 * j + 1)[None, :] * stride_ak,
                        mask=m_mask[:, None] & j_mask[None, :], other=0.0)
        acc = tl.dot(a_even, w_lo, acc)
        acc = tl.dot(a_odd, w_hi, acc)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc.to(c_ptr.dtype.element_ty),
             mask=m_mask[:, None] & n_mask[None, :])


def matmul_w4a16(a, w_packed, scales, group_size=128):
    M, K = a.shape
    N = w_packed.shape[1]
    assert w_packed.shape[0] * 2 == K and K % group_size == 0
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    BLOCK_M = 16 if M <= 16 else 32
    BLOCK_N, BLOCK_K = 32, 64
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    gemv_gemm_w4_kernel[grid](a, w_packed, scales, c, M, N, K,
                              a.stride(0), a.stride(1), w_packed.stride(0), w_packed.stride(1),
                              scales.stride(0), scales.stride(1), c.stride(0), c.stride(1),
                              GROUP_SIZE=group_size, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=4)
    return c
