# drill: attention
# expect: error
# style: nervous candidate writing FlashAttention-2 from the paper's pseudo-code: natural exp, -1e30 instead of -inf, causal as a runtime int (if causal != 0:), 1/l multiplied at the end
# why: the math is right and TRITON_INTERPRET=1 gives the right answer in every case (tails, causal, large, rising, views), but `causal` is a runtime int, so `if causal != 0:` becomes an scf.if in which `keep` changes shape from [1, BLOCK_KV] to [BLOCK_Q, BLOCK_KV]: Triton's compiler (3.9 and 3.6, sm_90) rejects it: "initial value for `keep` is of type int1[1, 32], but the then block redefines it as int1[32, 32]". The interpreter runs Python control flow and never notices. On a GPU it never launches.
import math

import torch
import triton
import triton.language as tl

NEG_BIG = -1.0e30


@triton.jit
def _flash_attn_fwd(Q, K, V, Out, scale,
                    s_qb, s_qh, s_qs, s_qd, s_kb, s_kh, s_ks, s_kd,
                    s_vb, s_vh, s_vs, s_vd, s_ob, s_oh, s_os, s_od,
                    num_heads, seqlen, causal,
                    BLOCK_Q: tl.constexpr, BLOCK_KV: tl.constexpr, HEAD_DIM: tl.constexpr):
    pid_q = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = pid_bh // num_heads
    h = pid_bh - b * num_heads
    iq = pid_q * BLOCK_Q + tl.arange(0, BLOCK_Q)
    ik = tl.arange(0, BLOCK_KV)
    idd = tl.arange(0, HEAD_DIM)

    Qi = tl.load(Q + b * s_qb + h * s_qh + iq[:, None] * s_qs + idd[None, :] * s_qd,
                 mask=iq[:, None] < seqlen, other=0.0)
    mi = tl.full([BLOCK_Q], -1.0e30, dtype=tl.float32)
    li = tl.zeros([BLOCK_Q], dtype=tl.float32)
    Oi = tl.zeros([BLOCK_Q, HEAD_DIM], dtype=tl.float32)

    for j in range(0, tl.cdiv(seqlen, BLOCK_KV)):
        kv = j * BLOCK_KV + ik
        Kj = tl.load(K + b * s_kb + h * s_kh + kv[:, None] * s_ks + idd[None, :] * s_kd,
                     mask=kv[:, None] < seqlen, other=0.0)
        Vj = tl.load(V + b * s_vb + h * s_vh + kv[:, None] * s_vs + idd[None, :] * s_vd,
                     mask=kv[:, None] < seqlen, other=0.0)
        Sij = tl.dot(Qi, tl.trans(Kj)) * scale
        keep = (kv[None, :] < seqlen)
        if causal != 0:
            keep = keep & (iq[:, None] >= kv[None, :])
        Sij = tl.where(keep, Sij, -1.0e30)
        mij = tl.maximum(mi, tl.max(Sij, axis=1))
        Pij = tl.exp(Sij - mij[:, None])
        corr = tl.exp(mi - mij)
        li = corr * li + tl.sum(Pij, axis=1)
        Oi = corr[:, None] * Oi + tl.dot(Pij.to(tl.float16), Vj)
        mi = mij

    inv_l = 1.0 / li
    Oi = Oi * inv_l[:, None]
    tl.store(Out + b * s_ob + h * s_oh + iq[:, None] * s_os + idd[None, :] * s_od, Oi.to(tl.float16),
             mask=iq[:, None] < seqlen)


def attention(q, k, v, causal=False):
    B, H, S, D = q.shape
    out = torch.empty(B, H, S, D, dtype=torch.float16, device=q.device)
    BLOCK_Q, BLOCK_KV = 32, 32
    grid = (triton.cdiv(S, BLOCK_Q), B * H)
    _flash_attn_fwd[grid](q, k, v, out, 1.0 / math.sqrt(D),
                          *q.stride(), *k.stride(), *v.stride(), *out.stride(),
                          H, S, int(causal),
                          BLOCK_Q=BLOCK_Q, BLOCK_KV=BLOCK_KV, HEAD_DIM=D, num_warps=4)
    return out
