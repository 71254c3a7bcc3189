# drill: decode-attention
# expect: wrong-values
# style: lightllm-style grouped split-KV decode (blind round 7): scores in base 2, the merge of the splits in base e
# why: the merge weighs each split's partial output with tl.exp of a base-2 log-sum-exp; the values are as large as
#      the output itself, so the report must not call them rounding of a lower precision, nor point at a line it does not show
# says: elements differ from the float64 reference
# not-says: slightly off
# not-says: rounding
# not-says: the line above
# Grouped-query split-KV decode, lightllm's gqa_flash_decoding layout: one program per (batch, kv head, split) holds
# the kv_group_num query heads of that KV head as the rows of its tl.dot tiles. Scores in base 2 (exp2 is one
# MUFU op): sm_scale already carries log2(e).
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _gqa_decode_stage1(Q, K, V, sm_scale, Block_Table, Seq_Len, Mid_O, Mid_Lse,
                       stride_qb, stride_qh, stride_qd,
                       stride_kp, stride_kt, stride_kh, stride_kd,
                       stride_vp, stride_vt, stride_vh, stride_vd,
                       stride_tb, stride_tj,
                       stride_mob, stride_moh, stride_mos, stride_mod,
                       stride_mlb, stride_mlh, stride_mls,
                       gqa_group_size: tl.constexpr, BLOCK_HEAD: tl.constexpr, PAGE: tl.constexpr,
                       BLOCK_DMODEL: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_SEQ: tl.constexpr):
    cur_batch = tl.program_id(0).to(tl.int64)
    cur_kv_head = tl.program_id(1)
    seq_block_id = tl.program_id(2)

    cur_q_head_range = cur_kv_head * gqa_group_size + tl.arange(0, BLOCK_HEAD)
    head_mask = tl.arange(0, BLOCK_HEAD) < gqa_group_size
    cur_batch_seq_len = tl.load(Seq_Len + cur_batch)
    cur_batch_start = seq_block_id * BLOCK_SEQ
    cur_batch_end = tl.minimum(cur_batch_seq_len, cur_batch_start + BLOCK_SEQ)

    offs_d = tl.arange(0, BLOCK_DMODEL)
    q = tl.load(Q + cur_batch * stride_qb + cur_q_head_range[:, None] * stride_qh + offs_d[None, :] * stride_qd,
                mask=head_mask[:, None], other=0.0)

    sum_exp = tl.zeros([BLOCK_HEAD], dtype=tl.float32)
    max_logic = tl.full([BLOCK_HEAD], float("-inf"), dtype=tl.float32)
    acc = tl.zeros([BLOCK_HEAD, BLOCK_DMODEL], dtype=tl.float32)

    if cur_batch_end > cur_batch_start:
        for start_n in range(cur_batch_start, cur_batch_end, BLOCK_N):
            offs_n = start_n + tl.arange(0, BLOCK_N)
            n_mask = offs_n < cur_batch_end
            page = tl.load(Block_Table + cur_batch * stride_tb + (offs_n // PAGE) * stride_tj,
                           mask=n_mask, other=0).to(tl.int64)
            slot = offs_n % PAGE
            k = tl.load(K + page[None, :] * stride_kp + slot[None, :] * stride_kt + cur_kv_head * stride_kh
                        + offs_d[:, None] * stride_kd, mask=n_mask[None, :], other=0.0)       # (D, BLOCK_N)
            att_value = tl.dot(q, k) * sm_scale
            att_value = tl.where(n_mask[None, :], att_value, float("-inf"))
            v = tl.load(V + page[:, None] * stride_vp + slot[:, None] * stride_vt + cur_kv_head * stride_vh
                        + offs_d[None, :] * stride_vd, mask=n_mask[:, None], other=0.0)      # (BLOCK_N, D)

            cur_max_logic = tl.max(att_value, axis=1)
            new_max_logic = tl.maximum(cur_max_logic, max_logic)
            exp_logic = tl.exp2(att_value - new_max_logic[:, None])
            logic_scale = tl.exp2(max_logic - new_max_logic)
            acc *= logic_scale[:, None]
            acc += tl.dot(exp_logic.to(v.dtype), v)
            sum_exp = sum_exp * logic_scale + tl.sum(exp_logic, axis=1)
            max_logic = new_max_logic

        off_mid = cur_batch * stride_mob + cur_q_head_range[:, None] * stride_moh + seq_block_id * stride_mos \
            + offs_d[None, :] * stride_mod
        tl.store(Mid_O + off_mid, acc / sum_exp[:, None], mask=head_mask[:, None])
        tl.store(Mid_Lse + cur_batch * stride_mlb + cur_q_head_range * stride_mlh + seq_block_id * stride_mls,
                 max_logic + tl.log2(sum_exp), mask=head_mask)


@triton.jit
def _gqa_decode_stage2(Seq_Len, Mid_O, Mid_Lse, Out,
                       stride_mob, stride_moh, stride_mos, stride_mod,
                       stride_mlb, stride_mlh, stride_mls,
                       stride_ob, stride_oh, stride_od,
                       BLOCK_SEQ: tl.constexpr, BLOCK_DMODEL: tl.constexpr):
    cur_batch = tl.program_id(0).to(tl.int64)
    cur_head = tl.program_id(1)
    offs_d = tl.arange(0, BLOCK_DMODEL)
    cur_batch_seq_len = tl.load(Seq_Len + cur_batch)
    block_n_size = tl.cdiv(cur_batch_seq_len, BLOCK_SEQ)

    sum_exp = 0.0
    max_logic = -float("inf")
    acc = tl.zeros([BLOCK_DMODEL], dtype=tl.float32)
    for block_seq_n in range(0, block_n_size, 1):
        tv = tl.load(Mid_O + cur_batch * stride_mob + cur_head * stride_moh + block_seq_n * stride_mos
                     + offs_d * stride_mod)
        tlogic = tl.load(Mid_Lse + cur_batch * stride_mlb + cur_head * stride_mlh + block_seq_n * stride_mls)
        new_max_logic = tl.maximum(tlogic, max_logic)
        old_scale = tl.exp(max_logic - new_max_logic)
        acc *= old_scale
        exp_logic = tl.exp(tlogic - new_max_logic)
        acc += exp_logic * tv
        sum_exp = sum_exp * old_scale + exp_logic
        max_logic = new_max_logic
    tl.store(Out + cur_batch * stride_ob + cur_head * stride_oh + offs_d * stride_od,
             (acc / sum_exp).to(Out.dtype.element_ty))


def decode_attention(q, k_cache, v_cache, block_table, seq_lens):
    B, H, D = q.shape
    _, PAGE, H_kv, _ = k_cache.shape
    group = H // H_kv
    BLOCK_SEQ = 64
    max_len = block_table.shape[1] * PAGE
    n_seq_blocks = triton.cdiv(max_len, BLOCK_SEQ)
    mid_o = torch.empty((B, H, n_seq_blocks, D), dtype=torch.float32, device=q.device)
    mid_lse = torch.empty((B, H, n_seq_blocks), dtype=torch.float32, device=q.device)
    o = torch.empty_like(q)
    _gqa_decode_stage1[(B, H_kv, n_seq_blocks)](
        q, k_cache, v_cache, 1.0 / math.sqrt(D) * 1.4426950408889634, block_table, seq_lens, mid_o, mid_lse,
        *q.stride(), *k_cache.stride(), *v_cache.stride(), *block_table.stride(), *mid_o.stride(), *mid_lse.stride(),
        gqa_group_size=group, BLOCK_HEAD=max(16, triton.next_power_of_2(group)), PAGE=PAGE, BLOCK_DMODEL=D,
        BLOCK_N=16, BLOCK_SEQ=BLOCK_SEQ, num_warps=4, num_stages=2)
    _gqa_decode_stage2[(B, H)](
        seq_lens, mid_o, mid_lse, o, *mid_o.stride(), *mid_lse.stride(), *o.stride(),
        BLOCK_SEQ=BLOCK_SEQ, BLOCK_DMODEL=D, num_warps=4, num_stages=2)
    return o
