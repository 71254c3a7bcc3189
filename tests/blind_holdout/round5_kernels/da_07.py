# drill: decode-attention
import math

import torch
import triton
import triton.language as tl


@triton.jit
def paged_attention_v2_kernel(exp_sums_ptr, max_logits_ptr, tmp_out_ptr, q_ptr, k_cache_ptr, v_cache_ptr,
                              block_tables_ptr, seq_lens_ptr, scale, max_num_partitions,
                              stride_qb, stride_qh, stride_kb, stride_kt, stride_kh, stride_vb, stride_vt, stride_vh,
                              stride_bt, NUM_QUERIES_PER_KV: tl.constexpr, HEAD_SIZE: tl.constexpr,
                              BLOCK_SIZE: tl.constexpr, BLOCK_SIZE_P2: tl.constexpr,
                              PAGES_PER_PARTITION: tl.constexpr):
    head_idx = tl.program_id(0)
    seq_idx = tl.program_id(1)
    partition_idx = tl.program_id(2)
    num_heads = tl.num_programs(0)
    kv_head_idx = head_idx // NUM_QUERIES_PER_KV
    seq_len = tl.load(seq_lens_ptr + seq_idx)
    num_seq_blocks = tl.cdiv(seq_len, BLOCK_SIZE)
    start_block = partition_idx * PAGES_PER_PARTITION
    end_block = tl.minimum(start_block + PAGES_PER_PARTITION, num_seq_blocks)

    offs_d = tl.arange(0, HEAD_SIZE)
    offs_t = tl.arange(0, BLOCK_SIZE_P2)
    q = tl.load(q_ptr + seq_idx * stride_qb + head_idx * stride_qh + offs_d).to(tl.float32)
    q = q * scale

    qk_max = float("-inf")
    exp_sum = 0.0
    acc = tl.zeros([HEAD_SIZE], dtype=tl.float32)
    for block_idx in range(start_block, end_block):
        physical_block = tl.load(block_tables_ptr + seq_idx * stride_bt + block_idx).to(tl.int64)
        tok = block_idx * BLOCK_SIZE + offs_t
        valid = offs_t < BLOCK_SIZE
        k = tl.load(k_cache_ptr + physical_block * stride_kb + offs_t[:, None] * stride_kt
                    + kv_head_idx * stride_kh + offs_d[None, :], mask=valid[:, None], other=0.0)
        qk = tl.sum(k.to(tl.float32) * q[None, :], axis=1)
        qk = tl.where(valid, qk, float("-inf"))
        new_max = tl.maximum(qk_max, tl.max(qk, axis=0))
        correction = tl.exp(qk_max - new_max)
        p = tl.exp(qk - new_max)
        v = tl.load(v_cache_ptr + physical_block * stride_vb + offs_t[:, None] * stride_vt
                    + kv_head_idx * stride_vh + offs_d[None, :], mask=valid[:, None], other=0.0)
        acc = acc * correction + tl.sum(p[:, None] * v.to(tl.float32), axis=0)
        exp_sum = exp_sum * correction + tl.sum(p, axis=0)
        qk_max = new_max

    part = (seq_idx * num_heads + head_idx) * max_num_partitions + partition_idx
    tl.store(max_logits_ptr + part, qk_max)
    tl.store(exp_sums_ptr + part, exp_sum)
    tl.store(tmp_out_ptr + part * HEAD_SIZE + offs_d, acc / tl.maximum(exp_sum, 1e-30))


@triton.jit
def paged_attention_v2_reduce_kernel(out_ptr, exp_sums_ptr, max_logits_ptr, tmp_out_ptr, seq_lens_ptr,
                                     max_num_partitions, stride_ob, stride_oh,
                                     HEAD_SIZE: tl.constexpr, PARTITION_SIZE: tl.constexpr,
                                     MAX_PARTITIONS_P2: tl.constexpr):
    head_idx = tl.program_id(0)
    seq_idx = tl.program_id(1)
    num_heads = tl.num_programs(0)
    seq_len = tl.load(seq_lens_ptr + seq_idx)
    num_partitions = tl.cdiv(seq_len, PARTITION_SIZE)
    offs_p = tl.arange(0, MAX_PARTITIONS_P2)
    offs_d = tl.arange(0, HEAD_SIZE)
    pmask = offs_p < num_partitions
    base = (seq_idx * num_heads + head_idx) * max_num_partitions
    max_logits = tl.load(max_logits_ptr + base + offs_p, mask=pmask, other=float("-inf"))
    max_logit = tl.max(max_logits, axis=0)
    exp_sums = tl.load(exp_sums_ptr + base + offs_p, mask=pmask, other=0.0)
    rescaled = tl.where(pmask, exp_sums * tl.exp(max_logits - max_logit), 0.0)
    global_exp_sum = tl.sum(rescaled, axis=0)
    tmp = tl.load(tmp_out_ptr + (base + offs_p)[:, None] * HEAD_SIZE + offs_d[None, :], mask=pmask[:, None],
                  other=0.0)
    out = tl.sum(tmp * rescaled[:, None], axis=0) / global_exp_sum
    tl.store(out_ptr + seq_idx * stride_ob + head_idx * stride_oh + offs_d, out.to(tl.float16))


def decode_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, block_table: torch.Tensor,
                     seq_lens: torch.Tensor) -> torch.Tensor:
    B, H, D = q.shape
    _, PAGE, H_kv, _ = k_cache.shape
    assert q.stride(2) == 1 and k_cache.stride(3) == 1 and v_cache.stride(3) == 1 and block_table.stride(1) == 1
    max_blocks = block_table.shape[1]
    pages_per_partition = max(1, 64 // PAGE)
    partition_size = pages_per_partition * PAGE
    max_num_partitions = triton.cdiv(max_blocks * PAGE, partition_size)
    exp_sums = torch.empty((B, H, max_num_partitions), dtype=torch.float32, device=q.device)
    max_logits = torch.empty((B, H, max_num_partitions), dtype=torch.float32, device=q.device)
    tmp_out = torch.empty((B, H, max_num_partitions, D), dtype=torch.float32, device=q.device)
    out = torch.empty((B, H, D), dtype=torch.float16, device=q.device)
    paged_attention_v2_kernel[(H, B, max_num_partitions)](
        exp_sums, max_logits, tmp_out, q, k_cache, v_cache, block_table, seq_lens, 1.0 / math.sqrt(D),
        max_num_partitions, q.stride(0), q.stride(1), k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        v_cache.stride(0), v_cache.stride(1), v_cache.stride(2), block_table.stride(0),
        NUM_QUERIES_PER_KV=H // H_kv, HEAD_SIZE=D, BLOCK_SIZE=PAGE, BLOCK_SIZE_P2=triton.next_power_of_2(PAGE),
        PAGES_PER_PARTITION=pages_per_partition, num_warps=4)
    paged_attention_v2_reduce_kernel[(H, B)](
        out, exp_sums, max_logits, tmp_out, seq_lens, max_num_partitions, out.stride(0), out.stride(1),
        HEAD_SIZE=D, PARTITION_SIZE=partition_size, MAX_PARTITIONS_P2=triton.next_power_of_2(max_num_partitions),
        num_warps=4)
    return out
