# drill: quant-matmul
# expect: pass
# also-ok: too-slow
# (CUDA only: correct, but 0.34x cuBLAS on the float16 weight in the H200's gate runs of 2026-12-01, under the 0.6x bar)
# AWQ-style (rewritten): BLOCK_K divides group_size, so a K step lies inside one group and its scale row is one
# (BLOCK_N,) vector: dot the raw int4 values (exact in float16), then scale the float32 partial product per
# column. The scale moves out of the weight tile into a per-step epilogue.
import torch
import triton
import triton.language as tl


@triton.jit
def awq_gemm_kernel(a_ptr, qw_ptr, s_ptr, c_ptr, M, N, K, G,
                    s_am, s_ak, s_qk, s_qn, s_sg, s_sn, s_cm, s_cn,
                    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * s_am + kk[None, :] * s_ak, mask=(rm[:, None] < M) & (kk[None, :] < K),
                    other=0.0)
        byte = tl.load(qw_ptr + (kk[:, None] >> 1) * s_qk + rn[None, :] * s_qn,
                       mask=(kk[:, None] < K) & (rn[None, :] < N), other=0).to(tl.int32)
        nib = (byte >> ((kk[:, None] & 1) << 2)) & 15
        w = (nib - ((nib & 8) << 1)).to(tl.float16)  # sign-extend: bit 3 set -> subtract 16
        part = tl.dot(a, w)
        s = tl.load(s_ptr + (k0 // G) * s_sg + rn * s_sn, mask=rn < N, other=0.0)
        acc += part * s.to(tl.float32)[None, :]
    tl.store(c_ptr + rm[:, None] * s_cm + rn[None, :] * s_cn, acc.to(tl.float16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul_w4a16(a, w_packed, scales, group_size=128):
    M, K = a.shape
    N = w_packed.shape[1]
    BK = 32 if group_size % 32 == 0 else 16
    assert group_size % BK == 0
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    BM = 16 if M <= 16 else 64
    awq_gemm_kernel[(triton.cdiv(M, BM), triton.cdiv(N, 64))](
        a, w_packed, scales, c, M, N, K, group_size, a.stride(0), a.stride(1), w_packed.stride(0), w_packed.stride(1),
        scales.stride(0), scales.stride(1), c.stride(0), c.stride(1), BM=BM, BN=64, BK=BK)
    return c
