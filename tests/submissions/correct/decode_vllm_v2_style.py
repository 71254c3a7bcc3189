# drill: decode-attention
# expect: pass
# vLLM PagedAttention v2 style: one KV page per loop step (BLOCK = the page), a partition of PARTITION_SIZE
# tokens per program, natural exp, and the partition's max logit and exp-sum stored separately; the reduce kernel
# rescales the exp-sums to the global max (vLLM's paged_attention_v2_reduce_kernel does the same in CUDA).
import math

import torch
import triton
import triton.language as tl


@triton.jit
def paged_attention_v2(out_part, max_logits, exp_sums, q, k_cache, v_cache, block_tables, context_lens,
                       scale, num_kv_heads, max_num_blocks, num_partitions,
                       HEAD_SIZE: tl.constexpr, BLOCK_SIZE: tl.constexpr, PARTITION_SIZE: tl.constexpr,
                       NUM_HEADS: tl.constexpr):
    seq = tl.program_id(0)
    head = tl.program_id(1)
    part = tl.program_id(2)
    ctx = tl.load(context_lens + seq)
    start = part * PARTITION_SIZE
    kv_head = head // (NUM_HEADS // num_kv_heads)
    d = tl.arange(0, HEAD_SIZE)
    slot = tl.arange(0, BLOCK_SIZE)
    qv = tl.load(q + (seq * NUM_HEADS + head) * HEAD_SIZE + d).to(tl.float32) * scale
    m = float("-inf")
    l = 0.0
    acc = tl.zeros([HEAD_SIZE], dtype=tl.float32)
    if start < ctx:
        first_block = start // BLOCK_SIZE
        last_block = tl.minimum(tl.cdiv(ctx, BLOCK_SIZE), (start + PARTITION_SIZE) // BLOCK_SIZE)
        for blk in range(first_block, last_block):
            phys = tl.load(block_tables + seq * max_num_blocks + blk).to(tl.int64)
            tok = blk * BLOCK_SIZE + slot
            ok = tok < ctx
            base = (phys * BLOCK_SIZE + slot[:, None]) * num_kv_heads * HEAD_SIZE + kv_head * HEAD_SIZE + d[None, :]
            k = tl.load(k_cache + base, mask=ok[:, None], other=0.0).to(tl.float32)
            qk = tl.where(ok, tl.sum(k * qv[None, :], 1), float("-inf"))
            m_new = tl.maximum(m, tl.max(qk, 0))
            corr = tl.exp(m - m_new)
            p = tl.exp(qk - m_new)
            v = tl.load(v_cache + base, mask=ok[:, None], other=0.0).to(tl.float32)
            acc = acc * corr + tl.sum(p[:, None] * v, 0)
            l = l * corr + tl.sum(p, 0)
            m = m_new
    idx = (seq * NUM_HEADS + head) * num_partitions + part
    tl.store(max_logits + idx, m)
    tl.store(exp_sums + idx, l)
    tl.store(out_part + idx * HEAD_SIZE + d, acc / tl.where(l > 0, l, 1.0))


@triton.jit
def paged_attention_v2_reduce(out, out_part, max_logits, exp_sums, context_lens, num_partitions,
                              HEAD_SIZE: tl.constexpr, NUM_HEADS: tl.constexpr, PARTITION_SIZE: tl.constexpr,
                              MAX_PARTS: tl.constexpr):
    seq = tl.program_id(0)
    head = tl.program_id(1)
    ctx = tl.load(context_lens + seq)
    n_parts = tl.cdiv(ctx, PARTITION_SIZE)
    parts = tl.arange(0, MAX_PARTS)
    ok = parts < n_parts
    row = (seq * NUM_HEADS + head) * num_partitions
    ml = tl.load(max_logits + row + parts, mask=ok, other=float("-inf"))
    es = tl.load(exp_sums + row + parts, mask=ok, other=0.0)
    g = tl.max(ml, 0)
    rescaled = es * tl.exp(ml - g)
    total = tl.sum(rescaled, 0)
    d = tl.arange(0, HEAD_SIZE)
    tmp = tl.load(out_part + (row + parts[:, None]) * HEAD_SIZE + d[None, :], mask=ok[:, None], other=0.0)
    o = tl.sum(tmp * (rescaled / total)[:, None], 0)
    tl.store(out + (seq * NUM_HEADS + head) * HEAD_SIZE + d, o.to(tl.float16))


def decode_attention(q, k_cache, v_cache, block_table, seq_lens):
    num_seqs, num_heads, head_size = q.shape
    _, block_size, num_kv_heads, _ = k_cache.shape
    q, k_cache, v_cache, block_table = q.contiguous(), k_cache.contiguous(), v_cache.contiguous(), block_table.contiguous()
    max_num_blocks = block_table.shape[1]
    PARTITION_SIZE = 64
    num_partitions = triton.cdiv(max_num_blocks * block_size, PARTITION_SIZE)
    out_part = torch.empty((num_seqs, num_heads, num_partitions, head_size), dtype=torch.float32, device=q.device)
    max_logits = torch.empty((num_seqs, num_heads, num_partitions), dtype=torch.float32, device=q.device)
    exp_sums = torch.empty_like(max_logits)
    out = torch.empty((num_seqs, num_heads, head_size), dtype=q.dtype, device=q.device)
    paged_attention_v2[(num_seqs, num_heads, num_partitions)](
        out_part, max_logits, exp_sums, q, k_cache, v_cache, block_table, seq_lens,
        1.0 / math.sqrt(head_size), num_kv_heads, max_num_blocks, num_partitions,
        HEAD_SIZE=head_size, BLOCK_SIZE=block_size, PARTITION_SIZE=PARTITION_SIZE, NUM_HEADS=num_heads)
    paged_attention_v2_reduce[(num_seqs, num_heads)](
        out, out_part, max_logits, exp_sums, seq_lens, num_partitions,
        HEAD_SIZE=head_size, NUM_HEADS=num_heads, PARTITION_SIZE=PARTITION_SIZE,
        MAX_PARTS=triton.next_power_of_2(num_partitions))
    return out
