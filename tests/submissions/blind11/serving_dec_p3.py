# drill: decode-attention
# expect: pass
# blind round 11 (2026-12-02, seen half): lightllm flash decoding _fwd_kernel_flash_decode_stage1/stage2: one program per (batch, q head, BLOC
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _flash_decoding_stage1(
    Q, K, V, BlockTable, SeqLens, MidOut, MidLogExpSum,
    stride_qbs, stride_qh, stride_qd,
    stride_kbs, stride_kt, stride_kh, stride_kd,
    stride_vbs, stride_vt, stride_vh, stride_vd,
    stride_tb, stride_tj,
    stride_mid_ob, stride_mid_oh, stride_mid_os, stride_mid_od,
    stride_mid_lb, stride_mid_lh, stride_mid_ls,
    sm_scale,
    gqa_group_size,
    PAGE: tl.constexpr,
    BLOCK_SEQ: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_DMODEL: tl.constexpr,
):
    cur_batch = tl.program_id(0)
    cur_head = tl.program_id(1)
    seq_start_block = tl.program_id(2)
    cur_kv_head = cur_head // gqa_group_size

    cur_batch_seq_len = tl.load(SeqLens + cur_batch)
    cur_batch_start = seq_start_block * BLOCK_SEQ
    cur_batch_end = tl.minimum(cur_batch_seq_len, cur_batch_start + BLOCK_SEQ)

    offs_d = tl.arange(0, BLOCK_DMODEL)
    offs_n = tl.arange(0, BLOCK_N)
    q = tl.load(Q + cur_batch * stride_qbs + cur_head * stride_qh + offs_d * stride_qd)

    sum_exp = 0.0
    max_logic = -float("inf")
    acc = tl.zeros([BLOCK_DMODEL], dtype=tl.float32)

    block_n_size = tl.cdiv(tl.maximum(cur_batch_end - cur_batch_start, 0), BLOCK_N)
    for start_n in range(0, block_n_size, 1):
        offs_n_new = cur_batch_start + start_n * BLOCK_N + offs_n
        n_mask = offs_n_new < cur_batch_end
        logical_page = offs_n_new // PAGE
        page_no = tl.load(BlockTable + cur_batch * stride_tb + logical_page * stride_tj,
                          mask=n_mask, other=0).to(tl.int64)
        in_page = offs_n_new % PAGE
        k_loc = page_no * stride_kbs + in_page * stride_kt + cur_kv_head * stride_kh
        v_loc = page_no * stride_vbs + in_page * stride_vt + cur_kv_head * stride_vh
        k = tl.load(K + k_loc[:, None] + offs_d[None, :] * stride_kd, mask=n_mask[:, None], other=0.0)
        att_value = tl.sum(q[None, :].to(tl.float32) * k.to(tl.float32), 1) * sm_scale
        att_value = tl.where(n_mask, att_value, float("-inf"))
        v = tl.load(V + v_loc[:, None] + offs_d[None, :] * stride_vd, mask=n_mask[:, None], other=0.0)

        cur_max_logic = tl.max(att_value, axis=0)
        new_max_logic = tl.maximum(cur_max_logic, max_logic)
        exp_logic = tl.exp(att_value - new_max_logic)
        logic_scale = tl.exp(max_logic - new_max_logic)
        acc *= logic_scale
        acc += tl.sum(exp_logic[:, None] * v.to(tl.float32), axis=0)
        sum_exp = sum_exp * logic_scale + tl.sum(exp_logic, axis=0)
        max_logic = new_max_logic

    if block_n_size > 0:
        off_mid_o = cur_batch * stride_mid_ob + cur_head * stride_mid_oh + seq_start_block * stride_mid_os
        tl.store(MidOut + off_mid_o + offs_d * stride_mid_od, acc / sum_exp)
        off_mid_l = cur_batch * stride_mid_lb + cur_head * stride_mid_lh + seq_start_block * stride_mid_ls
        tl.store(MidLogExpSum + off_mid_l, max_logic + tl.log(sum_exp))


@triton.jit
def _flash_decoding_stage2(
    MidOut, MidLogExpSum, SeqLens, O,
    stride_mid_ob, stride_mid_oh, stride_mid_os, stride_mid_od,
    stride_mid_lb, stride_mid_lh, stride_mid_ls,
    stride_obs, stride_oh, stride_od,
    num_seq_blocks,
    BLOCK_SEQ: tl.constexpr,
    BLOCK_DMODEL: tl.constexpr,
    SEQ_BLOCKS_P2: tl.constexpr,
):
    cur_batch = tl.program_id(0)
    cur_head = tl.program_id(1)
    cur_batch_seq_len = tl.load(SeqLens + cur_batch)
    offs_d = tl.arange(0, BLOCK_DMODEL)
    offs_s = tl.arange(0, SEQ_BLOCKS_P2)
    block_used = (offs_s < num_seq_blocks) & (offs_s * BLOCK_SEQ < cur_batch_seq_len)

    lse = tl.load(MidLogExpSum + cur_batch * stride_mid_lb + cur_head * stride_mid_lh + offs_s * stride_mid_ls,
                  mask=block_used, other=-float("inf"))
    tv = tl.load(MidOut + cur_batch * stride_mid_ob + cur_head * stride_mid_oh + offs_s[:, None] * stride_mid_os
                 + offs_d[None, :] * stride_mid_od, mask=block_used[:, None], other=0.0)
    max_lse = tl.max(lse, axis=0)
    weight = tl.exp(lse - max_lse)
    weight = tl.where(block_used, weight, 0.0)
    acc = tl.sum(tv * weight[:, None], axis=0) / tl.sum(weight, axis=0)
    tl.store(O + cur_batch * stride_obs + cur_head * stride_oh + offs_d * stride_od, acc.to(tl.float16))


def decode_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, block_table: torch.Tensor,
                     seq_lens: torch.Tensor) -> torch.Tensor:
    batch, head_num, head_dim = q.shape
    _, page, kv_head_num, _ = k_cache.shape
    max_len = block_table.shape[1] * page
    BLOCK_N = 16
    BLOCK_SEQ = max(BLOCK_N, triton.next_power_of_2(triton.cdiv(max_len, 4)))
    num_seq_blocks = triton.cdiv(max_len, BLOCK_SEQ)

    mid_o = torch.empty((batch, head_num, num_seq_blocks, head_dim), dtype=torch.float32, device=q.device)
    mid_lse = torch.empty((batch, head_num, num_seq_blocks), dtype=torch.float32, device=q.device)
    o = torch.empty((batch, head_num, head_dim), dtype=torch.float16, device=q.device)

    _flash_decoding_stage1[(batch, head_num, num_seq_blocks)](
        q, k_cache, v_cache, block_table, seq_lens, mid_o, mid_lse,
        *q.stride(), *k_cache.stride(), *v_cache.stride(), *block_table.stride(),
        *mid_o.stride(), *mid_lse.stride(),
        1.0 / math.sqrt(head_dim),
        head_num // kv_head_num,
        PAGE=page, BLOCK_SEQ=BLOCK_SEQ, BLOCK_N=BLOCK_N, BLOCK_DMODEL=head_dim, num_warps=2,
    )
    _flash_decoding_stage2[(batch, head_num)](
        mid_o, mid_lse, seq_lens, o,
        *mid_o.stride(), *mid_lse.stride(), *o.stride(),
        num_seq_blocks,
        BLOCK_SEQ=BLOCK_SEQ, BLOCK_DMODEL=head_dim, SEQ_BLOCKS_P2=triton.next_power_of_2(num_seq_blocks),
        num_warps=4,
    )
    return o
