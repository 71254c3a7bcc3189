# drill: quant-matmul
import torch
import triton
import triton.language as tl


@triton.jit
def w4a16_group_dot_kernel(a_ptr, w_ptr, s_ptr, c_ptr, M, N, K,
                           stride_am, stride_ak, stride_wk, stride_wn, stride_sg, stride_sn, stride_cm, stride_cn,
                           GROUP_SIZE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                           BLOCK_K: tl.constexpr):
    # outer loop over quantization groups, inner loop over the group's K blocks: the int4 values go into tl.dot
    # unscaled (exact in fp16), and the group's scale row multiplies the group's partial product once.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    m_ok = rm < M
    n_ok = rn < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    num_groups = K // GROUP_SIZE
    for g in range(0, num_groups):
        part = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kb in range(0, GROUP_SIZE, BLOCK_K):
            k = g * GROUP_SIZE + kb + rk
            k_ok = (kb + rk) < GROUP_SIZE
            a = tl.load(a_ptr + rm[:, None] * stride_am + k[None, :] * stride_ak, mask=m_ok[:, None] & k_ok[None, :],
                        other=0.0)
            byte = tl.load(w_ptr + (k // 2)[:, None] * stride_wk + rn[None, :] * stride_wn,
                           mask=k_ok[:, None] & n_ok[None, :], other=0).to(tl.int32)
            nib = tl.where((k % 2)[:, None] == 0, byte & 0xF, byte >> 4)
            q = tl.where(nib > 7, nib - 16, nib)
            part = tl.dot(a, q.to(tl.float16), part)
        sc = tl.load(s_ptr + g * stride_sg + rn * stride_sn, mask=n_ok, other=0.0).to(tl.float32)
        acc += part * sc[None, :]
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc.to(tl.float16),
             mask=m_ok[:, None] & n_ok[None, :])


def matmul_w4a16(a: torch.Tensor, w_packed: torch.Tensor, scales: torch.Tensor, group_size: int = 128) -> torch.Tensor:
    M, K = a.shape
    assert w_packed.shape[0] * 2 == K and K % group_size == 0
    N = w_packed.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    BLOCK_M = 16 if M <= 16 else 64
    BLOCK_N = 64
    BLOCK_K = min(64, triton.next_power_of_2(group_size))
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    w4a16_group_dot_kernel[grid](a, w_packed, scales, c, M, N, K,
                                 a.stride(0), a.stride(1), w_packed.stride(0), w_packed.stride(1),
                                 scales.stride(0), scales.stride(1), c.stride(0), c.stride(1),
                                 GROUP_SIZE=group_size, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                                 num_warps=4)
    return c
