# drill: quant-matmul
# expect: pass
# also-ok: too-slow
# (CUDA only: correct, but 0.14x cuBLAS on the float16 weight in the H200's gate runs of 2026-12-01, under the 0.6x bar)
# A careful candidate: load BK // 2 packed rows once, split each byte into its low (even k) and high (odd k)
# nibble tiles, and do two dots against the even and odd columns of a (strided loads of a, step 2).
import torch
import triton
import triton.language as tl


@triton.jit
def kernel(a_ptr, w_ptr, s_ptr, c_ptr, M, N, K, GS, sam, sak, swk, swn, ssg, ssn, scm, scn,
           BM: tl.constexpr, BN: tl.constexpr, BKH: tl.constexpr):
    m = tl.program_id(0) * BM + tl.arange(0, BM)
    n = tl.program_id(1) * BN + tl.arange(0, BN)
    r = tl.arange(0, BKH)  # packed rows: k = 2r (low) and 2r + 1 (high)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for r0 in range(0, K // 2, BKH):
        rows = r0 + r
        ok = rows < K // 2
        byte = tl.load(w_ptr + rows[:, None] * swk + n[None, :] * swn, mask=ok[:, None] & (n[None, :] < N), other=0)
        byte = byte.to(tl.int32)
        lo = byte & 0xF
        hi = (byte >> 4) & 0xF
        lo = tl.where(lo > 7, lo - 16, lo)
        hi = tl.where(hi > 7, hi - 16, hi)
        s = tl.load(s_ptr + ((2 * rows) // GS)[:, None] * ssg + n[None, :] * ssn,
                    mask=ok[:, None] & (n[None, :] < N), other=0.0).to(tl.float32)  # 2r and 2r + 1: one group
        a_even = tl.load(a_ptr + m[:, None] * sam + (2 * rows)[None, :] * sak, mask=(m[:, None] < M) & ok[None, :],
                         other=0.0)
        a_odd = tl.load(a_ptr + m[:, None] * sam + (2 * rows + 1)[None, :] * sak,
                        mask=(m[:, None] < M) & ok[None, :], other=0.0)
        acc = tl.dot(a_even, (lo.to(tl.float32) * s).to(tl.float16), acc)
        acc = tl.dot(a_odd, (hi.to(tl.float32) * s).to(tl.float16), acc)
    tl.store(c_ptr + m[:, None] * scm + n[None, :] * scn, acc.to(tl.float16), mask=(m[:, None] < M) & (n[None, :] < N))


def matmul_w4a16(a, w_packed, scales, group_size=128):
    M, K = a.shape
    N = w_packed.shape[1]
    c = torch.empty(M, N, dtype=torch.float16, device=a.device)
    kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](
        a, w_packed, scales, c, M, N, K, group_size, *a.stride(), *w_packed.stride(), *scales.stride(), *c.stride(),
        BM=32, BN=32, BKH=16)
    return c
