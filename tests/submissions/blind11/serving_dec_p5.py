# drill: decode-attention
# expect: indexing
# says: h % H_kv
# blind round 11 (2026-12-02, seen half): SGLang non-grouped _fwd_kernel_stage1 (one program per query head and KV split, exp2 with log2(e) in
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _fwd_kernel_stage1(
    Q, K_Buffer, V_Buffer, sm_scale, Block_Table, B_Seqlen, Att_Out, Att_Lse,
    stride_qbs, stride_qh, stride_qd,
    stride_buf_kbs, stride_buf_kt, stride_buf_kh, stride_buf_kd,
    stride_buf_vbs, stride_buf_vt, stride_buf_vh, stride_buf_vd,
    stride_bt_b, stride_bt_j,
    stride_mid_ob, stride_mid_oh, stride_mid_os, stride_mid_od,
    stride_lse_b, stride_lse_h, stride_lse_s,
    kv_head_num: tl.constexpr,
    PAGE_SIZE: tl.constexpr,
    BLOCK_DMODEL: tl.constexpr,
    BLOCK_N: tl.constexpr,
    NUM_KV_SPLITS: tl.constexpr,
):
    cur_batch = tl.program_id(0)
    cur_head = tl.program_id(1)
    split_kv_id = tl.program_id(2)
    cur_kv_head = cur_head % kv_head_num

    offs_d = tl.arange(0, BLOCK_DMODEL)
    offs_n = tl.arange(0, BLOCK_N)
    cur_batch_seq_len = tl.load(B_Seqlen + cur_batch)
    kv_len_per_split = tl.cdiv(cur_batch_seq_len, NUM_KV_SPLITS)
    split_kv_start = kv_len_per_split * split_kv_id
    split_kv_end = tl.minimum(split_kv_start + kv_len_per_split, cur_batch_seq_len)

    q = tl.load(Q + cur_batch * stride_qbs + cur_head * stride_qh + offs_d * stride_qd).to(tl.float32)

    e_max = -float("inf")
    e_sum = 0.0
    acc = tl.zeros([BLOCK_DMODEL], dtype=tl.float32)

    if split_kv_end > split_kv_start:
        for start_n in range(split_kv_start, split_kv_end, BLOCK_N):
            offs_tok = start_n + offs_n
            n_mask = offs_tok < split_kv_end
            kv_page = tl.load(Block_Table + cur_batch * stride_bt_b + (offs_tok // PAGE_SIZE) * stride_bt_j,
                              mask=n_mask, other=0).to(tl.int64)
            kv_slot = offs_tok % PAGE_SIZE
            k = tl.load(K_Buffer + kv_page[:, None] * stride_buf_kbs + kv_slot[:, None] * stride_buf_kt
                        + cur_kv_head * stride_buf_kh + offs_d[None, :] * stride_buf_kd,
                        mask=n_mask[:, None], other=0.0)
            qk = tl.sum(q[None, :] * k.to(tl.float32), 1) * sm_scale
            qk = tl.where(n_mask, qk, float("-inf"))
            v = tl.load(V_Buffer + kv_page[:, None] * stride_buf_vbs + kv_slot[:, None] * stride_buf_vt
                        + cur_kv_head * stride_buf_vh + offs_d[None, :] * stride_buf_vd,
                        mask=n_mask[:, None], other=0.0)

            n_e_max = tl.maximum(tl.max(qk, 0), e_max)
            re_scale = tl.exp2(e_max - n_e_max)
            p = tl.exp2(qk - n_e_max)
            acc *= re_scale
            acc += tl.sum(p[:, None] * v.to(tl.float32), 0)
            e_sum = e_sum * re_scale + tl.sum(p, 0)
            e_max = n_e_max

        tl.store(Att_Out + cur_batch * stride_mid_ob + cur_head * stride_mid_oh + split_kv_id * stride_mid_os
                 + offs_d * stride_mid_od, acc / e_sum)
        tl.store(Att_Lse + cur_batch * stride_lse_b + cur_head * stride_lse_h + split_kv_id * stride_lse_s,
                 e_max + tl.log2(e_sum))


@triton.jit
def _fwd_kernel_stage2(
    Mid_O, Mid_Lse, O, B_Seqlen,
    stride_mid_ob, stride_mid_oh, stride_mid_os, stride_mid_od,
    stride_lse_b, stride_lse_h, stride_lse_s,
    stride_obs, stride_oh, stride_od,
    NUM_KV_SPLITS: tl.constexpr,
    SPLITS_P2: tl.constexpr,
    BLOCK_DMODEL: tl.constexpr,
):
    cur_batch = tl.program_id(0)
    cur_head = tl.program_id(1)
    cur_batch_seq_len = tl.load(B_Seqlen + cur_batch)
    kv_len_per_split = tl.cdiv(cur_batch_seq_len, NUM_KV_SPLITS)
    offs_s = tl.arange(0, SPLITS_P2)
    offs_d = tl.arange(0, BLOCK_DMODEL)
    valid = (offs_s < NUM_KV_SPLITS) & (offs_s * kv_len_per_split < cur_batch_seq_len)
    lse = tl.load(Mid_Lse + cur_batch * stride_lse_b + cur_head * stride_lse_h + offs_s * stride_lse_s,
                  mask=valid, other=-float("inf"))
    tv = tl.load(Mid_O + cur_batch * stride_mid_ob + cur_head * stride_mid_oh + offs_s[:, None] * stride_mid_os
                 + offs_d[None, :] * stride_mid_od, mask=valid[:, None], other=0.0)
    e_max = tl.max(lse, 0)
    w = tl.where(valid, tl.exp2(lse - e_max), 0.0)
    acc = tl.sum(tv * w[:, None], 0) / tl.sum(w, 0)
    tl.store(O + cur_batch * stride_obs + cur_head * stride_oh + offs_d * stride_od, acc.to(tl.float16))


def decode_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, block_table: torch.Tensor,
                     seq_lens: torch.Tensor) -> torch.Tensor:
    batch, head_num, Lk = q.shape
    _, page_size, kv_head_num, _ = k_cache.shape
    num_kv_splits = 8
    BLOCK_N = 16
    sm_scale = 1.0 / math.sqrt(Lk) * 1.4426950408889634
    att_out = torch.empty((batch, head_num, num_kv_splits, Lk), dtype=torch.float32, device=q.device)
    att_lse = torch.empty((batch, head_num, num_kv_splits), dtype=torch.float32, device=q.device)
    o = torch.empty((batch, head_num, Lk), dtype=torch.float16, device=q.device)
    _fwd_kernel_stage1[(batch, head_num, num_kv_splits)](
        q, k_cache, v_cache, sm_scale, block_table, seq_lens, att_out, att_lse,
        *q.stride(), *k_cache.stride(), *v_cache.stride(), *block_table.stride(),
        *att_out.stride(), *att_lse.stride(),
        kv_head_num=kv_head_num, PAGE_SIZE=page_size, BLOCK_DMODEL=Lk, BLOCK_N=BLOCK_N,
        NUM_KV_SPLITS=num_kv_splits, num_warps=2,
    )
    _fwd_kernel_stage2[(batch, head_num)](
        att_out, att_lse, o, seq_lens,
        *att_out.stride(), *att_lse.stride(), *o.stride(),
        NUM_KV_SPLITS=num_kv_splits, SPLITS_P2=triton.next_power_of_2(num_kv_splits), BLOCK_DMODEL=Lk,
        num_warps=4,
    )
    return o
