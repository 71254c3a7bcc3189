# drill: quant-matmul
# expect: scale
# says: the packed row
# not-says: one scale for all groups
# Each byte is loaded once, its two nibbles dotted with a's even and odd columns; the scale's group is read from
# the packed row r (= k // 2) instead of from k, so from K = 2 x group_size on, k uses an earlier group's scales.
# At K <= 2 x group_size that is group 0 for every k, the same output as "one scale for all groups": the grade's
# other sizes must rule that one out.
import torch
import triton
import triton.language as tl


@triton.jit
def w4a16_even_odd(a_ptr, w_ptr, s_ptr, c_ptr, M, N, K,
                   stride_am, stride_ak, stride_wr, stride_wn, stride_sg, stride_sn, stride_cm, stride_cn,
                   GROUP_SIZE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_R: tl.constexpr):
    rows_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    r_in = tl.arange(0, BLOCK_R)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for r0 in range(0, K // 2, BLOCK_R):
        r = r0 + r_in
        byte = tl.load(w_ptr + r[:, None] * stride_wr + cols[None, :] * stride_wn,
                       mask=(r[:, None] < K // 2) & (cols[None, :] < N), other=0).to(tl.int32)
        lo = ((byte & 0xF) ^ 8) - 8
        hi = ((byte >> 4) ^ 8) - 8
        s = tl.load(s_ptr + (r // GROUP_SIZE)[:, None] * stride_sg + cols[None, :] * stride_sn,
                    mask=(r[:, None] < K // 2) & (cols[None, :] < N), other=0.0).to(tl.float32)
        a_mask = (rows_m[:, None] < M) & (r[None, :] < K // 2)
        a_even = tl.load(a_ptr + rows_m[:, None] * stride_am + (2 * r)[None, :] * stride_ak, mask=a_mask, other=0.0)
        a_odd = tl.load(a_ptr + rows_m[:, None] * stride_am + (2 * r + 1)[None, :] * stride_ak, mask=a_mask,
                        other=0.0)
        acc = tl.dot(a_even, (lo.to(tl.float32) * s).to(tl.float16), acc)
        acc = tl.dot(a_odd, (hi.to(tl.float32) * s).to(tl.float16), acc)
    tl.store(c_ptr + rows_m[:, None] * stride_cm + cols[None, :] * stride_cn, acc.to(tl.float16),
             mask=(rows_m[:, None] < M) & (cols[None, :] < N))


def matmul_w4a16(a: torch.Tensor, w_packed: torch.Tensor, scales: torch.Tensor, group_size: int = 128) -> torch.Tensor:
    M, K = a.shape
    N = w_packed.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = (triton.cdiv(M, 16), triton.cdiv(N, 64))
    w4a16_even_odd[grid](a, w_packed, scales, c, M, N, K,
                         a.stride(0), a.stride(1), w_packed.stride(0), w_packed.stride(1),
                         scales.stride(0), scales.stride(1), c.stride(0), c.stride(1),
                         GROUP_SIZE=group_size, BLOCK_M=16, BLOCK_N=64, BLOCK_R=16)
    return c
