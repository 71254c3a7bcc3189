# drill: attention
# expect: pass
# style: FlashAttention-4 style conditional (lazy) rescaling, written by a candidate: the max used for exp2 only moves when it grows by more than 8 (base 2)
# why: correct: each row keeps a stale reference max m_i and only switches to the new max (and rescales acc and l by alpha) when max(s) - m_i > 8; otherwise p = exp2(s - m_i) <= 2^8 = 256, safe in fp16 and fp32, and the final acc / l uses the same reference for numerator and denominator. Interpreter: all cases pass, including rising keys (the max moves in every block) and large scores; sm_90 compile OK.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def flash_fwd(Q, K, V, O,
              sqb, sqh, sqs, sqd,
              skb, skh, sks, skd,
              svb, svh, svs, svd,
              sob, soh, sos, sod,
              H, seq_len, sm_scale,
              IS_CAUSAL: tl.constexpr, HEAD_DIM: tl.constexpr,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # FlashAttention-2 forward: outer loop over query tiles (one per program), inner loop over K/V tiles
    start_m = tl.program_id(0)
    off_bh = tl.program_id(1)
    off_b = off_bh // H
    off_h = off_bh % H

    rows = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols0 = tl.arange(0, BLOCK_N)
    dims = tl.arange(0, HEAD_DIM)
    row_ok = rows < seq_len

    Q += off_b * sqb + off_h * sqh
    K += off_b * skb + off_h * skh
    V += off_b * svb + off_h * svh
    O += off_b * sob + off_h * soh

    q = tl.load(Q + rows[:, None] * sqs + dims[None, :] * sqd, mask=row_ok[:, None], other=0.0)
    qk_scale = sm_scale * 1.44269504  # log2(e): use exp2

    m_i = tl.full((BLOCK_M,), -float("inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), tl.float32)

    hi = seq_len
    if IS_CAUSAL:
        hi = tl.minimum(seq_len, (start_m + 1) * BLOCK_M)
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + cols0
        col_ok = cols < seq_len
        kT = tl.load(K + cols[None, :] * sks + dims[:, None] * skd, mask=col_ok[None, :], other=0.0)
        v = tl.load(V + cols[:, None] * svs + dims[None, :] * svd, mask=col_ok[:, None], other=0.0)

        s = tl.dot(q, kT) * qk_scale
        valid = col_ok[None, :]
        if IS_CAUSAL:
            valid = valid & (rows[:, None] >= cols[None, :])
        s = tl.where(valid, s, -float("inf"))

        m_blk = tl.max(s, axis=1)
        # only move the reference max when it grew a lot: p <= 2^8 otherwise, fine in fp16
        m_ij = tl.where(m_blk - m_i > 8.0, tl.maximum(m_i, m_blk), m_i)
        p = tl.exp2(s - m_ij[:, None])
        alpha = tl.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_ij

    out = acc / l_i[:, None]
    tl.store(O + rows[:, None] * sos + dims[None, :] * sod, out.to(tl.float16), mask=row_ok[:, None])


def attention(q, k, v, causal=False):
    B, H, S, D = q.shape
    assert D in (16, 32, 64, 128)
    o = torch.empty((B, H, S, D), dtype=torch.float16, device=q.device)
    BLOCK_M = 64
    BLOCK_N = 32
    grid = (triton.cdiv(S, BLOCK_M), B * H)
    flash_fwd[grid](q, k, v, o,
                    q.stride(0), q.stride(1), q.stride(2), q.stride(3),
                    k.stride(0), k.stride(1), k.stride(2), k.stride(3),
                    v.stride(0), v.stride(1), v.stride(2), v.stride(3),
                    o.stride(0), o.stride(1), o.stride(2), o.stride(3),
                    H, S, 1.0 / math.sqrt(D),
                    IS_CAUSAL=causal, HEAD_DIM=D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                    num_warps=4, num_stages=2)
    return o
