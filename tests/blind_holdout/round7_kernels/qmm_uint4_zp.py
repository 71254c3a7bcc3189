# drill: quant-matmul
# torchao-flavoured int4 weight-only GEMM: the packed (BLOCK_K // 2, BLOCK_N) byte tile is split into its two
# nibbles, joined and reshaped into a (BLOCK_K, BLOCK_N) tile, dequantised with the group's scale around the
# 4-bit zero point.
import torch
import triton
import triton.language as tl


@triton.jit
def _unpack_int4(packed, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):
    lo = packed & 0xF
    hi = (packed >> 4) & 0xF
    w = tl.join(lo, hi)                       # (BLOCK_K // 2, BLOCK_N, 2)
    w = tl.permute(w, (0, 2, 1))              # (BLOCK_K // 2, 2, BLOCK_N): row 2j = lo, 2j + 1 = hi
    return tl.reshape(w, (BLOCK_K, BLOCK_N))


@triton.jit
def int4_weight_only_mm(a_ptr, w_ptr, s_ptr, c_ptr, M, N, K,
                        stride_am, stride_ak, stride_wk, stride_wn, stride_sg, stride_sn, stride_cm, stride_cn,
                        GROUP_SIZE: tl.constexpr, ZERO_POINT: tl.constexpr,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    offs_j = tl.arange(0, BLOCK_K // 2)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + offs_k
        j = k0 // 2 + offs_j
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + k[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (k[None, :] < K), other=0.0)
        packed = tl.load(w_ptr + j[:, None] * stride_wk + offs_n[None, :] * stride_wn,
                         mask=(j[:, None] < K // 2) & (offs_n[None, :] < N), other=0).to(tl.int32)
        q = _unpack_int4(packed, BLOCK_K, BLOCK_N)
        s = tl.load(s_ptr + (k[:, None] // GROUP_SIZE) * stride_sg + offs_n[None, :] * stride_sn,
                    mask=(k[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        w = ((q - ZERO_POINT).to(tl.float32) * s.to(tl.float32)).to(tl.float16)
        acc += tl.dot(a, w)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc.to(tl.float16),
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def matmul_w4a16(a, w_packed, scales, group_size=128):
    M, K = a.shape
    N = w_packed.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    BLOCK_M, BLOCK_N, BLOCK_K = (16, 64, 64) if M <= 16 else (64, 64, 64)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    int4_weight_only_mm[grid](a, w_packed, scales, c, M, N, K,
                              a.stride(0), a.stride(1), w_packed.stride(0), w_packed.stride(1),
                              scales.stride(0), scales.stride(1), c.stride(0), c.stride(1),
                              GROUP_SIZE=group_size, ZERO_POINT=8, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                              num_warps=4, num_stages=2)
    return c
