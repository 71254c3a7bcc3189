# drill: decode-attention
import math

import torch
import triton
import triton.language as tl


@triton.jit
def decode_split_kernel(q_ptr, k_ptr, v_ptr, block_table_ptr, seq_lens_ptr, o_part_ptr, lse_ptr,
                        stride_qb, stride_qh, stride_qd,
                        stride_kp, stride_kt, stride_kh, stride_kd,  # k_cache (num_blocks, PAGE, H_kv, D)
                        stride_vp, stride_vt, stride_vh, stride_vd,
                        stride_bt_b, stride_bt_j,
                        stride_ob, stride_oh, stride_os, stride_od,  # o_part (B, H, NUM_SPLITS, D) float32
                        stride_lb, stride_lh, stride_ls,             # lse (B, H, NUM_SPLITS) float32
                        qk_scale,  # 1/sqrt(D) * log2(e)
                        PAGE, GROUP: tl.constexpr,  # GROUP = H // H_kv query heads per KV head
                        D: tl.constexpr, BLOCK_N: tl.constexpr, SPLIT_LEN: tl.constexpr):
    b = tl.program_id(0)
    h = tl.program_id(1)
    split = tl.program_id(2)
    kv_h = h // GROUP
    seq_len = tl.load(seq_lens_ptr + b)
    offs_d = tl.arange(0, D)
    offs_n = tl.arange(0, BLOCK_N)
    q = tl.load(q_ptr + b * stride_qb + h * stride_qh + offs_d * stride_qd).to(tl.float32)

    m_i = float("-inf")  # running max of this split's base-2 scores
    l_i = 0.0            # running sum of exp2(score - m_i)
    acc = tl.zeros([D], dtype=tl.float32)
    start = split * SPLIT_LEN
    end = tl.minimum(start + SPLIT_LEN, seq_len)
    for t0 in range(start, end, BLOCK_N):
        tok = t0 + offs_n
        valid = tok < end
        # The physical page holding each token, and the token's slot inside that page.
        page = tok // PAGE
        slot = tok % PAGE
        k = tl.load(k_ptr + page[:, None] * stride_kp + slot[:, None] * stride_kt + kv_h * stride_kh
                    + offs_d[None, :] * stride_kd, mask=valid[:, None], other=0.0)
        s = tl.sum(k.to(tl.float32) * q[None, :], axis=1) * qk_scale
        s = tl.where(valid, s, float("-inf"))
        v = tl.load(v_ptr + page[:, None] * stride_vp + slot[:, None] * stride_vt + kv_h * stride_vh
                    + offs_d[None, :] * stride_vd, mask=valid[:, None], other=0.0)
        # One online-softmax step over this block: m_new, alpha, p, then l_i, acc and m_i updated.
        m_new = tl.maximum(m_i, tl.max(s, axis=0))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=0)
        acc = acc * alpha + tl.sum(p[:, None] * v.to(tl.float32), axis=0)
        m_i = m_new

    # A split past the end of the sequence saw no token (l_i = 0): it stores lse = -inf, o = 0, and the combine
    # skips it anyway.
    l_safe = tl.maximum(l_i, 1e-30)
    tl.store(o_part_ptr + b * stride_ob + h * stride_oh + split * stride_os + offs_d * stride_od, acc / l_safe)
    tl.store(lse_ptr + b * stride_lb + h * stride_lh + split * stride_ls, m_i + tl.log2(l_safe))


@triton.jit
def decode_combine_kernel(o_part_ptr, lse_ptr, seq_lens_ptr, o_ptr,
                          stride_ob, stride_oh, stride_os, stride_od,
                          stride_lb, stride_lh, stride_ls,
                          stride_yb, stride_yh, stride_yd,
                          NUM_SPLITS, D: tl.constexpr, SPLIT_LEN: tl.constexpr, SPLITS_P2: tl.constexpr):
    b = tl.program_id(0)
    h = tl.program_id(1)
    seq_len = tl.load(seq_lens_ptr + b)
    offs_s = tl.arange(0, SPLITS_P2)
    offs_d = tl.arange(0, D)
    used = (offs_s < NUM_SPLITS) & (offs_s * SPLIT_LEN < seq_len)  # splits that saw at least one token
    lse = tl.load(lse_ptr + b * stride_lb + h * stride_lh + offs_s * stride_ls, mask=used, other=float("-inf"))
    o_s = tl.load(o_part_ptr + b * stride_ob + h * stride_oh + offs_s[:, None] * stride_os
                  + offs_d[None, :] * stride_od, mask=used[:, None], other=0.0)
    # Merge the splits: each o_s is normalised within its split; lse_s (base 2) says how much that split weighs.
    lse_max = tl.max(lse, axis=0)
    wts = tl.where(used, tl.exp2(lse - lse_max), 0.0)
    o = tl.sum(o_s * wts[:, None], axis=0) / tl.sum(wts, axis=0)
    tl.store(o_ptr + b * stride_yb + h * stride_yh + offs_d * stride_yd, o.to(tl.float16))


def decode_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, block_table: torch.Tensor,
                     seq_lens: torch.Tensor) -> torch.Tensor:
    B, H, D = q.shape
    _, PAGE, H_kv, _ = k_cache.shape
    max_blocks = block_table.shape[1]
    BLOCK_N = 32
    # Splits from the table's width (no host sync on seq_lens): at most 16, each a whole number of BLOCK_N tiles.
    tiles = triton.cdiv(max_blocks * PAGE, BLOCK_N)
    num_splits = min(16, triton.cdiv(tiles, 4))
    split_len = triton.cdiv(tiles, num_splits) * BLOCK_N
    num_splits = triton.cdiv(max_blocks * PAGE, split_len)
    o_part = torch.empty((B, H, num_splits, D), device=q.device, dtype=torch.float32)
    lse = torch.empty((B, H, num_splits), device=q.device, dtype=torch.float32)
    o = torch.empty((B, H, D), device=q.device, dtype=torch.float16)
    decode_split_kernel[(B, H, num_splits)](
        q, k_cache, v_cache, block_table, seq_lens, o_part, lse,
        *q.stride(), *k_cache.stride(), *v_cache.stride(), *block_table.stride(), *o_part.stride(), *lse.stride(),
        (1.0 / math.sqrt(D)) * 1.4426950408889634, PAGE,
        GROUP=H // H_kv, D=D, BLOCK_N=BLOCK_N, SPLIT_LEN=split_len, num_warps=4)
    decode_combine_kernel[(B, H)](
        o_part, lse, seq_lens, o, *o_part.stride(), *lse.stride(), *o.stride(),
        num_splits, D=D, SPLIT_LEN=split_len, SPLITS_P2=triton.next_power_of_2(num_splits), num_warps=4)
    return o
