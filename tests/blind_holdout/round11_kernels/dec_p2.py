import math

import torch
import triton
import triton.language as tl


@triton.jit
def paged_attn_partition_kernel(
    q_ptr, k_cache_ptr, v_cache_ptr, block_tables_ptr, seq_lens_ptr, tmp_out_ptr, lse_ptr,
    stride_qb, stride_qh, stride_qd,
    stride_kb, stride_kt, stride_kh, stride_kd,
    stride_vb, stride_vt, stride_vh, stride_vd,
    stride_bt0, stride_bt1,
    stride_tb, stride_th, stride_tp, stride_td,
    stride_lb, stride_lh, stride_lp,
    scale,
    QUERY_GRP_SZ: tl.constexpr,
    KV_BLK_SZ: tl.constexpr,
    KV_BLK_SZ_POW2: tl.constexpr,
    HEAD_SZ: tl.constexpr,
    BLKS_PER_PARTITION: tl.constexpr,
):
    seq_idx = tl.program_id(0)
    head_idx = tl.program_id(1)
    part_idx = tl.program_id(2)
    kv_head_idx = head_idx // QUERY_GRP_SZ

    seq_len = tl.load(seq_lens_ptr + seq_idx)
    num_blks = tl.cdiv(seq_len, KV_BLK_SZ)
    blk_start = part_idx * BLKS_PER_PARTITION
    blk_end = tl.minimum(blk_start + BLKS_PER_PARTITION, num_blks)

    offs_d = tl.arange(0, HEAD_SZ)
    offs_t = tl.arange(0, KV_BLK_SZ_POW2)
    q = tl.load(q_ptr + seq_idx * stride_qb + head_idx * stride_qh + offs_d * stride_qd).to(tl.float32)
    q = q * scale

    m_i = float("-inf")
    l_i = 0.0
    acc = tl.zeros([HEAD_SZ], dtype=tl.float32)
    for blk in range(blk_start, blk_end):
        phys = tl.load(block_tables_ptr + seq_idx * stride_bt0 + blk * stride_bt1).to(tl.int64)
        tok = blk * KV_BLK_SZ + offs_t
        valid = (offs_t < KV_BLK_SZ) & (tok < seq_len)
        k = tl.load(k_cache_ptr + phys * stride_kb + offs_t[:, None] * stride_kt + kv_head_idx * stride_kh
                    + offs_d[None, :] * stride_kd, mask=valid[:, None], other=0.0).to(tl.float32)
        qk = tl.sum(k * q[None, :], axis=1)
        qk = tl.where(valid, qk, float("-inf"))
        v = tl.load(v_cache_ptr + phys * stride_vb + offs_t[:, None] * stride_vt + kv_head_idx * stride_vh
                    + offs_d[None, :] * stride_vd, mask=valid[:, None], other=0.0).to(tl.float32)
        m_new = tl.maximum(m_i, tl.max(qk, axis=0))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(qk - m_new)
        acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
        l_i = l_i * alpha + tl.sum(p, axis=0)
        m_i = m_new

    if blk_end > blk_start:
        tl.store(tmp_out_ptr + seq_idx * stride_tb + head_idx * stride_th + part_idx * stride_tp
                 + offs_d * stride_td, acc / l_i)
        tl.store(lse_ptr + seq_idx * stride_lb + head_idx * stride_lh + part_idx * stride_lp, tl.log(l_i))


@triton.jit
def paged_attn_reduce_kernel(
    tmp_out_ptr, lse_ptr, seq_lens_ptr, out_ptr,
    stride_tb, stride_th, stride_tp, stride_td,
    stride_lb, stride_lh, stride_lp,
    stride_ob, stride_oh, stride_od,
    NUM_PARTITIONS, PARTITION_TOKENS: tl.constexpr,
    HEAD_SZ: tl.constexpr, MAX_PARTS_POW2: tl.constexpr,
):
    seq_idx = tl.program_id(0)
    head_idx = tl.program_id(1)
    seq_len = tl.load(seq_lens_ptr + seq_idx)
    num_parts = tl.cdiv(seq_len, PARTITION_TOKENS)
    offs_p = tl.arange(0, MAX_PARTS_POW2)
    offs_d = tl.arange(0, HEAD_SZ)
    live = (offs_p < num_parts) & (offs_p < NUM_PARTITIONS)

    lse = tl.load(lse_ptr + seq_idx * stride_lb + head_idx * stride_lh + offs_p * stride_lp,
                  mask=live, other=float("-inf"))
    g_max = tl.max(lse, axis=0)
    w = tl.exp(lse - g_max)
    w = tl.where(live, w, 0.0)
    parts = tl.load(tmp_out_ptr + seq_idx * stride_tb + head_idx * stride_th + offs_p[:, None] * stride_tp
                    + offs_d[None, :] * stride_td, mask=live[:, None], other=0.0)
    out = tl.sum(parts * w[:, None], axis=0) / tl.sum(w, axis=0)
    tl.store(out_ptr + seq_idx * stride_ob + head_idx * stride_oh + offs_d * stride_od, out.to(tl.float16))


def decode_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, block_table: torch.Tensor,
                     seq_lens: torch.Tensor) -> torch.Tensor:
    B, H, D = q.shape
    _, blk_sz, H_kv, _ = k_cache.shape
    max_blks = block_table.shape[1]
    blks_per_part = max(1, 32 // blk_sz)
    num_parts = triton.cdiv(max_blks, blks_per_part)
    tmp_out = torch.empty((B, H, num_parts, D), device=q.device, dtype=torch.float32)
    lse = torch.empty((B, H, num_parts), device=q.device, dtype=torch.float32)
    out = torch.empty((B, H, D), device=q.device, dtype=torch.float16)
    paged_attn_partition_kernel[(B, H, num_parts)](
        q, k_cache, v_cache, block_table, seq_lens, tmp_out, lse,
        *q.stride(), *k_cache.stride(), *v_cache.stride(), *block_table.stride(),
        *tmp_out.stride(), *lse.stride(),
        1.0 / math.sqrt(D),
        QUERY_GRP_SZ=H // H_kv, KV_BLK_SZ=blk_sz, KV_BLK_SZ_POW2=triton.next_power_of_2(blk_sz), HEAD_SZ=D,
        BLKS_PER_PARTITION=blks_per_part, num_warps=4,
    )
    paged_attn_reduce_kernel[(B, H)](
        tmp_out, lse, seq_lens, out,
        *tmp_out.stride(), *lse.stride(), *out.stride(),
        num_parts, PARTITION_TOKENS=blks_per_part * blk_sz, HEAD_SZ=D,
        MAX_PARTS_POW2=triton.next_power_of_2(num_parts), num_warps=4,
    )
    return out
