# drill: quant-matmul
# expect: scale
# says: the packed row
# not-says: one scale for all groups
# blind round 11 (2026-12-02, seen half): packed-row loop GEMV/GEMM: separate strided loads of A even and odd columns, int8 bitcast + arithmet
import torch
import triton
import triton.language as tl


@triton.jit
def w4a16_gemv_kernel(
    x_ptr, qw_ptr, sc_ptr, y_ptr,
    M, N, K,
    sxm, sxk, sqr, sqn, ssg, ssn, sym, syn,
    GROUP_SIZE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_R: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    om = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    on = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    orr = tl.arange(0, BLOCK_R)
    mm = om < M
    nm = on < N
    R = K // 2

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for r0 in range(0, R, BLOCK_R):
        rows = r0 + orr
        rm = rows < R
        x_even = tl.load(x_ptr + om[:, None] * sxm + (2 * rows)[None, :] * sxk,
                         mask=mm[:, None] & rm[None, :], other=0.0)
        x_odd = tl.load(x_ptr + om[:, None] * sxm + (2 * rows + 1)[None, :] * sxk,
                        mask=mm[:, None] & rm[None, :], other=0.0)
        byte = tl.load(qw_ptr + rows[:, None] * sqr + on[None, :] * sqn, mask=rm[:, None] & nm[None, :], other=0)
        sbyte = byte.to(tl.int8, bitcast=True).to(tl.int32)
        w_lo = (sbyte << 28) >> 28
        w_hi = sbyte >> 4
        g = r0 // GROUP_SIZE
        sc = tl.load(sc_ptr + g * ssg + on * ssn, mask=nm, other=0.0)
        acc = tl.dot(x_even, w_lo.to(tl.float16) * sc[None, :], acc)
        acc = tl.dot(x_odd, w_hi.to(tl.float16) * sc[None, :], acc)

    tl.store(y_ptr + om[:, None] * sym + on[None, :] * syn, acc.to(tl.float16), mask=mm[:, None] & nm[None, :])


def matmul_w4a16(a: torch.Tensor, w_packed: torch.Tensor, scales: torch.Tensor, group_size: int = 128) -> torch.Tensor:
    M, K = a.shape
    assert w_packed.shape[0] * 2 == K and K % group_size == 0
    N = w_packed.shape[1]
    y = torch.empty((M, N), device=a.device, dtype=torch.float16)
    BLOCK_M = 16 if M <= 16 else 32
    BLOCK_N = 32
    BLOCK_R = min(64, group_size // 2)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    w4a16_gemv_kernel[grid](
        a, w_packed, scales, y, M, N, K,
        a.stride(0), a.stride(1), w_packed.stride(0), w_packed.stride(1),
        scales.stride(0), scales.stride(1), y.stride(0), y.stride(1),
        GROUP_SIZE=group_size, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_R=BLOCK_R, num_warps=4,
    )
    return y
