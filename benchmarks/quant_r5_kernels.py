"""Round 5 candidates for quant-matmul (issue 22; benchmark code, not the reference): timed by
`benchmarks/serving_sweep.py --case quant --set 5` through serving_candidates.w4a16 (kinds "dqg" and "s5").

- kind "dqg" (the large-M path vLLM's AWQ linear takes at >= 256 tokens: awq_dequantize, then a dense GEMM), all in
  Triton: `dequant_w4` writes the float16 (K, N) weight once (each packed byte loaded once, the group scale applied),
  then `matmul_fp16` (tutorial 03's grouped program order, tl.dot) multiplies a by it. The scratch is K * N * 2
  bytes (128 MiB at N = K = 8192), freed when the call returns.
- kind "s5" (small M): the even/odd kernel with the nibble read as float16 by its bits (kind "eo" mode 1), plus the
  switches round 4 left untimed: PIPE (tl.range(..., num_stages=PIPE) on the split-K loop instead of the kernel's
  num_stages), SCALE_PART (dot on the exact q, the step's scale on the float32 partial product), REDUCE (split-K
  into float32 partials (SPLIT_K, M, N) and a second tiny launch that sums them, instead of float16 atomics),
  WORDS (the packed weight loaded as int32 words, four columns' bytes a word, the float16 bit patterns built two
  lanes at a time with 32-bit ops: (word >> s) & 0x000F000F ^ 0x64086408), DOT = 0 (broadcast multiply-add on the
  CUDA cores instead of tl.dot, for M <= 4), UNROLL (tl.range's loop_unroll_factor).
"""
from __future__ import annotations

import torch
import triton
import triton.language as tl


# -- kind "dqg": dequantise once, then a float16 GEMM ---------------------------------------------------------------
@triton.jit
def _dequant_w4_kernel(w_ptr, s_ptr, out_ptr, K, N, stride_wk, stride_wn, stride_sg, stride_sn, stride_ok, stride_on,
                       GROUP_SIZE: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_N: tl.constexpr):
    """Packed rows r0 .. r0 + BLOCK_R (k = 2r, 2r + 1) of BLOCK_N columns: each byte loaded once, its two nibbles
    written as the float16 weights q * s of rows 2r (low) and 2r + 1 (high). 2 * BLOCK_R divides GROUP_SIZE, so a
    program's rows lie in one group: one scale row."""
    pid_r = tl.program_id(0)
    pid_n = tl.program_id(1)
    r = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (r[:, None] < K // 2) & (n[None, :] < N)
    byte = tl.load(w_ptr + r[:, None] * stride_wk + n[None, :] * stride_wn, mask=mask, other=0)
    s = tl.load(s_ptr + ((pid_r * BLOCK_R * 2) // GROUP_SIZE) * stride_sg + n * stride_sn, mask=n < N, other=0.0)
    lo = ((byte & 0xF).to(tl.int16) ^ 0x6408).to(tl.float16, bitcast=True) - 1032.0  # 1032 + q read by bits
    hi = ((byte >> 4).to(tl.int16) ^ 0x6408).to(tl.float16, bitcast=True) - 1032.0
    out = out_ptr + (2 * r)[:, None] * stride_ok + n[None, :] * stride_on
    tl.store(out, lo * s[None, :], mask=mask)
    tl.store(out + stride_ok, hi * s[None, :], mask=mask)


def dequant_w4(w_packed, scales, group_size, block_r=32, block_n=128, warps=4):
    K, N = w_packed.shape[0] * 2, w_packed.shape[1]
    block_r = min(block_r, group_size // 2)
    w = torch.empty((K, N), device=w_packed.device, dtype=torch.float16)
    grid = (triton.cdiv(K // 2, block_r), triton.cdiv(N, block_n))
    _dequant_w4_kernel[grid](w_packed, scales, w, K, N, w_packed.stride(0), w_packed.stride(1), scales.stride(0),
                             scales.stride(1), w.stride(0), w.stride(1), GROUP_SIZE=group_size, BLOCK_R=block_r,
                             BLOCK_N=block_n, num_warps=warps)
    return w


@triton.jit
def _matmul_fp16_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                        stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                        GROUP_M: tl.constexpr, EVEN_K: tl.constexpr):
    """Tutorial 03: C = A @ B, float32 accumulation, programs in groups of GROUP_M rows of tiles (L2 reuse)."""
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    width = GROUP_M * num_n
    first_m = (pid // width) * GROUP_M
    rows = tl.minimum(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % width) % rows
    pid_n = (pid % width) // rows
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M  # wrapped: the edge tiles load valid rows, stored masked
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        if EVEN_K:
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
        else:
            a = tl.load(a_ptrs, mask=(k0 + offs_k)[None, :] < K, other=0.0)
            b = tl.load(b_ptrs, mask=(k0 + offs_k)[:, None] < K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc.to(tl.float16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul_fp16(a, b, bm=128, bn=256, bk=64, gm=8, warps=8, stages=3):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    _matmul_fp16_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                              c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm, EVEN_K=K % bk == 0,
                              num_warps=warps, num_stages=stages)
    return c


def dqg_w4a16(a, w_packed, scales, group_size, cfg):
    w = dequant_w4(w_packed, scales, group_size, cfg.get("DR", 32), cfg.get("DN", 128), cfg.get("dwarps", 4))
    return matmul_fp16(a, w, cfg["BM"], cfg["BN"], cfg["BK"], cfg.get("gm", 8), cfg.get("warps", 8),
                       cfg.get("stages", 3))


def dequant_only(a, w_packed, scales, group_size, cfg):
    """The dqg path's first launch alone (its share of the time; not a product)."""
    return dequant_w4(w_packed, scales, group_size, cfg.get("DR", 32), cfg.get("DN", 128), cfg.get("dwarps", 4))


# -- kind "s5": the small-M even/odd kernel, by bits, with round 4's untimed switches -------------------------------
@triton.jit
def _bits16(x):
    """int16 nibble values (0..15) -> float16 1032 + q (two's complement q) by their bits."""
    return (x ^ 0x6408).to(tl.float16, bitcast=True)


@triton.jit
def _word_lanes(word, SHIFT: tl.constexpr):
    """From int32 words (4 columns' bytes), the nibbles at bit SHIFT of bytes 0..3 as four float16 tiles 1032 + q,
    built two lanes at a time: (word >> SHIFT) & 0x000F000F ^ 0x64086408 holds bytes 0 and 2 (SHIFT 0 / 4) or 1 and
    3 (SHIFT 8 / 12) as two float16 bit patterns; the halves are taken by truncation and shift."""
    t = ((word >> SHIFT) & 0x000F000F) ^ 0x64086408
    lo = t.to(tl.int16).to(tl.float16, bitcast=True)
    hi = (t >> 16).to(tl.int16).to(tl.float16, bitcast=True)
    return lo, hi


@triton.jit
def _words_tile(word, SHIFT: tl.constexpr, HALF: tl.constexpr, BLOCK_N: tl.constexpr):
    """The (HALF, BLOCK_N) float16 tile 1032 + q of the nibbles at SHIFT (0: even k, 4: odd k), columns in n order:
    join(byte 0, byte 2) and join(byte 1, byte 3), then joined again, puts column 4c + byte at position 4c + byte."""
    b0, b2 = _word_lanes(word, SHIFT)
    b1, b3 = _word_lanes(word, SHIFT + 8)
    ev = tl.reshape(tl.join(b0, b2), (HALF, BLOCK_N // 2))  # column 2c + p: byte 2p
    od = tl.reshape(tl.join(b1, b3), (HALF, BLOCK_N // 2))  # column 2c + p: byte 2p + 1
    return tl.reshape(tl.join(ev, od), (HALF, BLOCK_N))     # column 4c + 2p + q: byte 2p + q


@triton.jit
def _w4_s5(a_ptr, w_ptr, s_ptr, c_ptr, M, N, K,
           stride_am, stride_ak, stride_wk, stride_wn, stride_sg, stride_sn, stride_cm, stride_cn, stride_cs,
           GROUP_SIZE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
           SPLIT_K: tl.constexpr, PIPE: tl.constexpr, SCALE_PART: tl.constexpr, REDUCE: tl.constexpr,
           WORDS: tl.constexpr, DOT: tl.constexpr, UNROLL: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    HALF: tl.constexpr = BLOCK_K // 2
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_h = tl.arange(0, HALF)
    offs_k = tl.arange(0, BLOCK_K)
    m_ok = offs_m < M
    n_ok = offs_n < N
    if WORDS:  # w_ptr is the int32 view (K // 2, N // 4); BLOCK_N // 4 words a row
        offs_c = pid_n * (BLOCK_N // 4) + tl.arange(0, BLOCK_N // 4)
        c_ok = offs_c < N // 4
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in tl.range(pid_k * BLOCK_K, K, BLOCK_K * SPLIT_K, num_stages=PIPE, loop_unroll_factor=UNROLL):
        r = k0 // 2 + offs_h
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + (k0 + offs_k)[None, :] * stride_ak,
                    mask=m_ok[:, None], other=0.0)
        a_even, a_odd = tl.split(tl.reshape(a, (BLOCK_M, HALF, 2)))
        s = tl.load(s_ptr + (k0 // GROUP_SIZE) * stride_sg + offs_n * stride_sn, mask=n_ok, other=0.0)
        if WORDS:
            word = tl.load(w_ptr + r[:, None] * stride_wk + offs_c[None, :], mask=c_ok[None, :], other=0)
            lo = _words_tile(word, 0, HALF, BLOCK_N) - 1032.0
            hi = _words_tile(word, 4, HALF, BLOCK_N) - 1032.0
        else:
            byte = tl.load(w_ptr + r[:, None] * stride_wk + offs_n[None, :] * stride_wn, mask=n_ok[None, :], other=0)
            lo = _bits16((byte & 0xF).to(tl.int16)) - 1032.0
            hi = _bits16((byte >> 4).to(tl.int16)) - 1032.0
        if not SCALE_PART:
            lo = lo * s[None, :]
            hi = hi * s[None, :]
        if DOT:
            if SCALE_PART:
                part = tl.dot(a_odd, hi, tl.dot(a_even, lo))
                acc += part * s.to(tl.float32)[None, :]
            else:
                acc = tl.dot(a_odd, hi, tl.dot(a_even, lo, acc))
        else:  # broadcast multiply-add over the step's HALF packed rows, float32
            prod = (a_even.to(tl.float32)[:, :, None] * lo.to(tl.float32)[None, :, :]
                    + a_odd.to(tl.float32)[:, :, None] * hi.to(tl.float32)[None, :, :])
            part = tl.sum(prod, axis=1)
            if SCALE_PART:
                acc += part * s.to(tl.float32)[None, :]
            else:
                acc += part
    c_mask = m_ok[:, None] & n_ok[None, :]
    if SPLIT_K == 1:
        tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc.to(tl.float16), mask=c_mask)
    elif REDUCE:  # float32 partials (SPLIT_K, M, N), summed by _sum_splits
        tl.store(c_ptr + pid_k * stride_cs + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc,
                 mask=c_mask)
    else:
        tl.atomic_add(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc.to(tl.float16),
                      mask=c_mask, sem="relaxed")


@triton.jit
def _sum_splits(p_ptr, c_ptr, MN, SPLIT_K: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < MN
    tot = tl.zeros((BLOCK,), dtype=tl.float32)
    for j in tl.static_range(SPLIT_K):
        tot += tl.load(p_ptr + j * MN + offs, mask=ok, other=0.0)
    tl.store(c_ptr + offs, tot.to(tl.float16), mask=ok)


def s5_w4a16(a, w_packed, scales, group_size, cfg):
    M, K = a.shape
    N = w_packed.shape[1]
    bm, bn = cfg["BM"], cfg["BN"]
    bk = min(cfg["BK"], group_size)
    sk = max(1, min(cfg.get("SPLIT_K", 1), K // bk))
    reduce_, words = cfg.get("reduce", 0) and sk > 1, cfg.get("words", 0)
    if words:
        assert N % 4 == 0 and w_packed.stride(1) == 1 and bn % 4 == 0, "words: N % 4 == 0, rows contiguous"
        w = w_packed.view(torch.int32)
    else:
        w = w_packed
    if reduce_:
        part = torch.empty((sk, M, N), device=a.device, dtype=torch.float32)
        out, scs, scm, scn = part, part.stride(0), part.stride(1), part.stride(2)
    else:
        out = (torch.zeros if sk > 1 else torch.empty)((M, N), device=a.device, dtype=torch.float16)
        scs, scm, scn = 0, out.stride(0), out.stride(1)
    grid = (triton.cdiv(M, bm), triton.cdiv(N, bn), sk)
    _w4_s5[grid](a, w, scales, out, M, N, K, a.stride(0), a.stride(1), w.stride(0), w.stride(1), scales.stride(0),
                 scales.stride(1), scm, scn, scs, GROUP_SIZE=group_size, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                 SPLIT_K=sk, PIPE=cfg.get("pipe", 0) or None, SCALE_PART=cfg.get("spart", 0), REDUCE=int(bool(reduce_)),
                 WORDS=words, DOT=cfg.get("dot", 1), UNROLL=cfg.get("unroll", 0) or None, num_warps=cfg.get("warps", 4), num_stages=cfg.get("stages", 3))
    if not reduce_:
        return out
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    _sum_splits[(triton.cdiv(M * N, 1024),)](part, c, M * N, SPLIT_K=sk, BLOCK=1024, num_warps=4)
    return c
