# drill: attention
# expect: pass
# style: Triton tutorial 06-fused-attention (_attn_fwd_inner, STAGE constexpr, two-stage causal loop, exp2 with qk_scale = sm_scale * 1.44269504), with S-tail masks added
# why: correct. Off-band stage (STAGE 1) runs keys [0, start_m*BLOCK_M) unmasked except for the S tail; the diagonal stage (STAGE 2) runs [start_m*BLOCK_M, (start_m+1)*BLOCK_M) with the causal mask; non-causal uses STAGE 3 style "everything". Interpreter: all S in {1,17,100,130,300}, causal/non-causal, large and rising scores, (B,S,H,D) views match float64 within 2e-2; sm_90 compile OK.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q,
                    K_block_ptr_base, V_block_ptr_base, stride_kn, stride_kk, stride_vn, stride_vk,
                    start_m, qk_scale, N_CTX,
                    BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr,
                    STAGE: tl.constexpr, offs_m: tl.constexpr, offs_n: tl.constexpr):
    # range of values handled by this stage
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:  # causal = False
        lo, hi = 0, N_CTX
    offs_k = tl.arange(0, HEAD_DIM)
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        cols = start_n + offs_n
        k = tl.load(K_block_ptr_base + offs_k[:, None] * stride_kk + cols[None, :] * stride_kn,
                    mask=cols[None, :] < N_CTX, other=0.0)
        qk = tl.dot(q, k)
        if STAGE == 2:
            mask = (offs_m[:, None] >= cols[None, :]) & (cols[None, :] < N_CTX)
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            qk = qk * qk_scale + tl.where(cols[None, :] < N_CTX, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk = qk - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        # -- update m_i and l_i
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        # -- update output accumulator --
        acc = acc * alpha[:, None]
        v = tl.load(V_block_ptr_base + cols[:, None] * stride_vn + offs_k[None, :] * stride_vk,
                    mask=cols[:, None] < N_CTX, other=0.0)
        p = p.to(tl.float16)
        acc = tl.dot(p, v, acc)
        # update m_i
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def _attn_fwd(Q, K, V, sm_scale, Out,
              stride_qz, stride_qh, stride_qm, stride_qk,
              stride_kz, stride_kh, stride_kn, stride_kk,
              stride_vz, stride_vh, stride_vk, stride_vn,
              stride_oz, stride_oh, stride_om, stride_on,
              Z, H, N_CTX,
              HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    tl.static_assert(BLOCK_N <= HEAD_DIM or True)
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    q_offset = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh
    k_offset = off_z.to(tl.int64) * stride_kz + off_h.to(tl.int64) * stride_kh
    v_offset = off_z.to(tl.int64) * stride_vz + off_h.to(tl.int64) * stride_vh
    o_offset = off_z.to(tl.int64) * stride_oz + off_h.to(tl.int64) * stride_oh

    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, HEAD_DIM)
    # initialize pointer to m and l
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    # load scales
    qk_scale = sm_scale
    qk_scale *= 1.44269504  # 1/log(2)
    q = tl.load(Q + q_offset + offs_m[:, None] * stride_qm + offs_k[None, :] * stride_qk,
                mask=offs_m[:, None] < N_CTX, other=0.0)
    # stage 1: off-band
    # For causal = True, STAGE = 3 and _attn_fwd_inner gets 1 as its STAGE
    # For causal = False, STAGE = 1, and _attn_fwd_inner gets 3 as its STAGE
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K + k_offset, V + v_offset,
                                        stride_kn, stride_kk, stride_vk, stride_vn,
                                        start_m, qk_scale, N_CTX,
                                        BLOCK_M, HEAD_DIM, BLOCK_N, 4 - STAGE, offs_m, offs_n)
    # stage 2: on-band
    if STAGE & 2:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K + k_offset, V + v_offset,
                                        stride_kn, stride_kk, stride_vk, stride_vn,
                                        start_m, qk_scale, N_CTX,
                                        BLOCK_M, HEAD_DIM, BLOCK_N, 2, offs_m, offs_n)
    # epilogue
    acc = acc / l_i[:, None]
    o_ptrs = Out + o_offset + offs_m[:, None] * stride_om + offs_k[None, :] * stride_on
    tl.store(o_ptrs, acc.to(Out.type.element_ty), mask=offs_m[:, None] < N_CTX)


def attention(q, k, v, causal=False):
    HEAD_DIM_Q, HEAD_DIM_K, HEAD_DIM_V = q.shape[-1], k.shape[-1], v.shape[-1]
    assert HEAD_DIM_Q == HEAD_DIM_K and HEAD_DIM_K == HEAD_DIM_V
    assert HEAD_DIM_K in {16, 32, 64, 128, 256}
    o = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    sm_scale = 1.0 / math.sqrt(HEAD_DIM_K)
    stage = 3 if causal else 1
    BLOCK_M, BLOCK_N = 64, 32
    grid = (triton.cdiv(q.shape[2], BLOCK_M), q.shape[0] * q.shape[1], 1)
    _attn_fwd[grid](
        q, k, v, sm_scale, o,
        q.stride(0), q.stride(1), q.stride(2), q.stride(3),
        k.stride(0), k.stride(1), k.stride(2), k.stride(3),
        v.stride(0), v.stride(1), v.stride(2), v.stride(3),
        o.stride(0), o.stride(1), o.stride(2), o.stride(3),
        q.shape[0], q.shape[1], N_CTX=q.shape[2],
        HEAD_DIM=HEAD_DIM_K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, STAGE=stage,
        num_warps=4, num_stages=3)
    return o
