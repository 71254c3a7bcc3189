# drill: attention
# expect: pass
# Forward pass in the style of Triton's tutorial 06 (fused attention): qk_scale = sm_scale * log2(e) applied
# after the max, tl.trans on a K tile loaded as (BLOCK_N, D), exp2, and the causal case split into the
# off-diagonal blocks (no mask) and the diagonal block (masked).
import torch
import triton
import triton.language as tl


@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q, K_block_ptr_base, V_block_ptr_base, stride_kn, stride_vn, start_m, qk_scale,
                    lo, hi, N_CTX, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr,
                    DIAGONAL: tl.constexpr):
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    for start_n in range(lo, hi, BLOCK_N):
        n = start_n + offs_n
        k = tl.load(K_block_ptr_base + n[:, None] * stride_kn + offs_d[None, :], mask=n[:, None] < N_CTX, other=0.0)
        qk = tl.dot(q, tl.trans(k))
        valid = n[None, :] < N_CTX
        if DIAGONAL:
            valid = valid & (offs_m[:, None] >= n[None, :])
        qk = tl.where(valid, qk, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(V_block_ptr_base + n[:, None] * stride_vn + offs_d[None, :], mask=n[:, None] < N_CTX, other=0.0)
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def _attn_fwd(Q, K, V, sm_scale, Out, stride_z, stride_h, stride_m, N_CTX, H,
              HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    base = off_z * stride_z + off_h * stride_h
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = tl.load(Q + base + offs_m[:, None] * stride_m + offs_d[None, :], mask=offs_m[:, None] < N_CTX, other=0.0)
    if CAUSAL:
        # blocks strictly below the diagonal, then the diagonal block with its mask
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K + base, V + base, stride_m, stride_m, start_m, qk_scale,
                                        0, start_m * BLOCK_M, N_CTX, BLOCK_M, BLOCK_N, HEAD_DIM, False)
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K + base, V + base, stride_m, stride_m, start_m, qk_scale,
                                        start_m * BLOCK_M, (start_m + 1) * BLOCK_M, N_CTX, BLOCK_M, BLOCK_N,
                                        HEAD_DIM, True)
    else:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K + base, V + base, stride_m, stride_m, start_m, qk_scale,
                                        0, N_CTX, N_CTX, BLOCK_M, BLOCK_N, HEAD_DIM, False)
    acc = acc / l_i[:, None]
    tl.store(Out + base + offs_m[:, None] * stride_m + offs_d[None, :], acc.to(Out.type.element_ty),
             mask=offs_m[:, None] < N_CTX)


def attention(q, k, v, causal=False):
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    B, H, S, D = q.shape
    o = torch.empty_like(q)
    BLOCK_M, BLOCK_N = 64, 64
    grid = (triton.cdiv(S, BLOCK_M), B * H, 1)
    _attn_fwd[grid](q, k, v, D ** -0.5, o, q.stride(0), q.stride(1), q.stride(2), S, H,
                    HEAD_DIM=D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, CAUSAL=causal, num_warps=4, num_stages=3)
    return o
