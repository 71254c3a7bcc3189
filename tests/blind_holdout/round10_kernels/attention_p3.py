# drill: attention
import math

import torch
import triton
import triton.language as tl


@triton.jit
def attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr,  # (B, H, S, D) each, any strides
                     stride_qb, stride_qh, stride_qs, stride_qd,
                     stride_kb, stride_kh, stride_ks, stride_kd,
                     stride_vb, stride_vh, stride_vs, stride_vd,
                     stride_ob, stride_oh, stride_os, stride_od,
                     H, S,
                     qk_scale,  # 1/sqrt(D) * log2(e): scores come out in base 2
                     D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr,
                     ):
    pid_m = tl.program_id(0)  # which block of queries
    bh = tl.program_id(1)     # which (batch, head)
    b = bh // H
    h = bh % H
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, D)
    q_base = q_ptr + b * stride_qb + h * stride_qh
    k_base = k_ptr + b * stride_kb + h * stride_kh
    v_base = v_ptr + b * stride_vb + h * stride_vh
    q = tl.load(q_base + offs_m[:, None] * stride_qs + offs_d[None, :] * stride_qd, mask=offs_m[:, None] < S,
                other=0.0)

    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)  # running max (base-2 scores)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)                # running sum of exp2(score - m_i)
    acc = tl.zeros([BLOCK_M, D], dtype=tl.float32)             # running sum of exp2(score - m_i) * v

    end = S
    if CAUSAL:
        end = tl.minimum(S, (pid_m + 1) * BLOCK_M)  # blocks above the diagonal contribute nothing: skipped
    for start_n in range(0, end, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(k_base + cols[None, :] * stride_ks + offs_d[:, None] * stride_kd, mask=cols[None, :] < S,
                    other=0.0)  # (D, BLOCK_N): k transposed, by its strides
        s = tl.dot(q, k) * qk_scale
        keep = cols[None, :] < S
        if CAUSAL:
            keep = keep & (cols[None, :] <= offs_m[:, None])
        s = tl.where(keep, s, float("-inf"))
        v = tl.load(v_base + cols[:, None] * stride_vs + offs_d[None, :] * stride_vd, mask=cols[:, None] < S,
                    other=0.0)
        # One online-softmax step: m_new, alpha, p (as float16 for tl.dot), then l_i, acc and m_i updated.
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_new

    o = acc / l_i[:, None]
    o_ptrs = o_ptr + b * stride_ob + h * stride_oh + offs_m[:, None] * stride_os + offs_d[None, :] * stride_od
    tl.store(o_ptrs, o.to(tl.float16), mask=offs_m[:, None] < S)


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False) -> torch.Tensor:
    B, H, S, D = q.shape
    o = torch.empty((B, H, S, D), device=q.device, dtype=torch.float16)
    BLOCK_M, BLOCK_N = 128, 64
    grid = (triton.cdiv(S, BLOCK_M), B * H)
    attention_kernel[grid](q, k, v, o,
                           *q.stride(), *k.stride(), *v.stride(), *o.stride(),
                           H, S, 1.4426950408889634 / math.sqrt(D),
                           D=D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, CAUSAL=causal,
                           num_warps=8 if D >= 128 else 4, num_stages=3)
    return o
