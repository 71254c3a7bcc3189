import torch
import triton
import triton.language as tl


@triton.jit
def _dequant_tile(packed, scale_tile, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):
    nib_lo = (packed & 0xF).to(tl.int32)
    nib_hi = ((packed >> 4) & 0xF).to(tl.int32)
    lo = (nib_lo ^ 8) - 8
    hi = (nib_hi ^ 8) - 8
    w = tl.join(lo, hi)
    w = tl.permute(w, (0, 2, 1))
    w = tl.reshape(w, (BLOCK_K, BLOCK_N))
    return w.to(tl.float16) * scale_tile


@triton.jit
def int4_gemm_kernel(
    a_ptr, qw_ptr, scales_ptr, c_ptr,
    M, N, K, group_size,
    stride_am, stride_ak, stride_qk, stride_qn, stride_sk, stride_sn, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    width = GROUP_M * grid_n
    group_id = pid // width
    group_size_m = min(grid_m - group_id * GROUP_M, GROUP_M)
    pid_m = group_id * GROUP_M + (pid % group_size_m)
    pid_n = (pid % width) // group_size_m

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    rkp = tl.arange(0, BLOCK_K // 2)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k_start in range(0, K, BLOCK_K):
        kk = k_start + rk
        kp = k_start // 2 + rkp
        a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        packed = tl.load(qw_ptr + kp[:, None] * stride_qk + rn[None, :] * stride_qn,
                         mask=(kp[:, None] < K // 2) & (rn[None, :] < N), other=0)
        grp = kk // group_size
        s = tl.load(scales_ptr + grp[:, None] * stride_sk + rn[None, :] * stride_sn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        b = _dequant_tile(packed, s, BLOCK_K, BLOCK_N)
        acc = tl.dot(a, b, acc)

    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc.to(tl.float16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul_w4a16(a: torch.Tensor, w_packed: torch.Tensor, scales: torch.Tensor, group_size: int = 128) -> torch.Tensor:
    M, K = a.shape
    assert w_packed.shape[0] * 2 == K and K % group_size == 0
    N = w_packed.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    BLOCK_M = 16 if M <= 16 else 64
    BLOCK_N = 64
    BLOCK_K = 64
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
    int4_gemm_kernel[grid](
        a, w_packed, scales, c, M, N, K, group_size,
        a.stride(0), a.stride(1), w_packed.stride(0), w_packed.stride(1),
        scales.stride(0), scales.stride(1), c.stride(0), c.stride(1),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=8, num_warps=4, num_stages=3,
    )
    return c
