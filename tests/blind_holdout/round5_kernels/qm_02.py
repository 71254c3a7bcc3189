# drill: quant-matmul
import torch
import triton
import triton.language as tl


@triton.jit
def awq_style_gemm_kernel(a_ptr, b_ptr, c_ptr, s_ptr, M, N, K,
                          s_am, s_ak, s_bk, s_bn, s_cm, s_cn, s_sg, s_sn, group_size,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # BLOCK_K divides group_size: each K step lies in one group, so one row of scales per step.
    # The K step loads BLOCK_K // 2 packed rows and interleaves the low and high nibbles back into k order.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    offs_kp = tl.arange(0, BLOCK_K // 2)
    n_ok = offs_n < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * s_am + kk[None, :] * s_ak,
                    mask=(offs_m[:, None] < M) & (kk[None, :] < K), other=0.0)
        kp = k0 // 2 + offs_kp
        b = tl.load(b_ptr + kp[:, None] * s_bk + offs_n[None, :] * s_bn,
                    mask=(kp[:, None] < K // 2) & n_ok[None, :], other=0).to(tl.int32)
        lo = b & 0xF
        hi = (b >> 4) & 0xF
        lo = (lo ^ 8) - 8
        hi = (hi ^ 8) - 8
        # (BLOCK_K // 2, BLOCK_N) x 2 -> (BLOCK_N, BLOCK_K) with k = 2 * kp + {0, 1}, then back to (BLOCK_K, BLOCK_N)
        w_int = tl.trans(tl.interleave(tl.trans(lo), tl.trans(hi)))
        g = k0 // group_size
        sc = tl.load(s_ptr + g * s_sg + offs_n * s_sn, mask=n_ok, other=0.0).to(tl.float32)
        w = (w_int.to(tl.float32) * sc[None, :]).to(tl.float16)
        acc = tl.dot(a, w, acc)
    c = acc.to(tl.float16)
    tl.store(c_ptr + offs_m[:, None] * s_cm + offs_n[None, :] * s_cn, c,
             mask=(offs_m[:, None] < M) & n_ok[None, :])


def matmul_w4a16(a: torch.Tensor, w_packed: torch.Tensor, scales: torch.Tensor, group_size: int = 128) -> torch.Tensor:
    M, K = a.shape
    assert w_packed.shape[0] * 2 == K and K % group_size == 0
    N = w_packed.shape[1]
    BLOCK_K = 64
    while group_size % BLOCK_K:
        BLOCK_K //= 2
    assert BLOCK_K >= 16, "group_size must be a multiple of 16"
    BLOCK_M = 16 if M <= 16 else 64
    BLOCK_N = 64
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    awq_style_gemm_kernel[grid](a, w_packed, c, scales, M, N, K,
                                a.stride(0), a.stride(1), w_packed.stride(0), w_packed.stride(1),
                                c.stride(0), c.stride(1), scales.stride(0), scales.stride(1), group_size,
                                BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=4)
    return c
