import math

import torch
import triton
import triton.language as tl


@triton.jit
def _fwd_grouped_kernel_stage1(
    Q, K_Cache, V_Cache, Block_Table, Seq_Lens, Mid_O, Mid_Lse,
    stride_qb, stride_qh, stride_qd,
    stride_kp, stride_kt, stride_kh, stride_kd,
    stride_vp, stride_vt, stride_vh, stride_vd,
    stride_btb, stride_btj,
    stride_mob, stride_moh, stride_mos, stride_mod,
    stride_mlb, stride_mlh, stride_mls,
    sm_scale_log2,
    kv_group_num: tl.constexpr,
    PAGE_SIZE: tl.constexpr,
    BLOCK_DMODEL: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_H: tl.constexpr,
    NUM_KV_SPLITS: tl.constexpr,
):
    cur_batch = tl.program_id(0)
    cur_kv_head = tl.program_id(1)
    split_kv_id = tl.program_id(2)

    offs_h = tl.arange(0, BLOCK_H)
    cur_head = cur_kv_head * kv_group_num + offs_h
    mask_h = offs_h < kv_group_num
    offs_d = tl.arange(0, BLOCK_DMODEL)
    offs_n = tl.arange(0, BLOCK_N)

    cur_batch_seq_len = tl.load(Seq_Lens + cur_batch)
    kv_len_per_split = tl.cdiv(cur_batch_seq_len, NUM_KV_SPLITS)
    split_kv_start = kv_len_per_split * split_kv_id
    split_kv_end = tl.minimum(split_kv_start + kv_len_per_split, cur_batch_seq_len)

    q = tl.load(Q + cur_batch * stride_qb + cur_head[:, None] * stride_qh + offs_d[None, :] * stride_qd,
                mask=mask_h[:, None], other=0.0)

    e_max = tl.full([BLOCK_H], float("-inf"), dtype=tl.float32)
    e_sum = tl.zeros([BLOCK_H], dtype=tl.float32)
    acc = tl.zeros([BLOCK_H, BLOCK_DMODEL], dtype=tl.float32)

    if split_kv_end > split_kv_start:
        for start_n in range(split_kv_start, split_kv_end, BLOCK_N):
            offs_tok = start_n + offs_n
            mask_n = offs_tok < split_kv_end
            kv_page = tl.load(Block_Table + cur_batch * stride_btb + (offs_tok // PAGE_SIZE) * stride_btj,
                              mask=mask_n, other=0).to(tl.int64)
            kv_slot = offs_tok % PAGE_SIZE
            k = tl.load(K_Cache + kv_page[None, :] * stride_kp + kv_slot[None, :] * stride_kt
                        + cur_kv_head * stride_kh + offs_d[:, None] * stride_kd,
                        mask=mask_n[None, :], other=0.0)
            qk = tl.dot(q, k) * sm_scale_log2
            qk = tl.where(mask_n[None, :], qk, float("-inf"))
            v = tl.load(V_Cache + kv_page[:, None] * stride_vp + kv_slot[:, None] * stride_vt
                        + cur_kv_head * stride_vh + offs_d[None, :] * stride_vd,
                        mask=mask_n[:, None], other=0.0)

            n_e_max = tl.maximum(tl.max(qk, 1), e_max)
            re_scale = tl.exp2(e_max - n_e_max)
            p = tl.exp2(qk - n_e_max[:, None])
            acc = acc * re_scale[:, None] + tl.dot(p.to(v.dtype), v)
            e_sum = e_sum * re_scale + tl.sum(p, 1)
            e_max = n_e_max

        tl.store(Mid_O + cur_batch * stride_mob + cur_head[:, None] * stride_moh + split_kv_id * stride_mos
                 + offs_d[None, :] * stride_mod, acc / e_sum[:, None], mask=mask_h[:, None])
        tl.store(Mid_Lse + cur_batch * stride_mlb + cur_head * stride_mlh + split_kv_id * stride_mls,
                 e_max + tl.log2(e_sum), mask=mask_h)


@triton.jit
def _fwd_kernel_stage2(
    Mid_O, Mid_Lse, O, Seq_Lens,
    stride_mob, stride_moh, stride_mos, stride_mod,
    stride_mlb, stride_mlh, stride_mls,
    stride_ob, stride_oh, stride_od,
    NUM_KV_SPLITS: tl.constexpr,
    BLOCK_DMODEL: tl.constexpr,
):
    cur_batch = tl.program_id(0)
    cur_head = tl.program_id(1)
    cur_batch_seq_len = tl.load(Seq_Lens + cur_batch)
    offs_d = tl.arange(0, BLOCK_DMODEL)

    e_sum = 0.0
    e_max = -float("inf")
    acc = tl.zeros([BLOCK_DMODEL], dtype=tl.float32)
    kv_len_per_split = tl.cdiv(cur_batch_seq_len, NUM_KV_SPLITS)
    for split_kv_id in range(0, NUM_KV_SPLITS):
        split_kv_start = kv_len_per_split * split_kv_id
        split_kv_end = tl.minimum(split_kv_start + kv_len_per_split, cur_batch_seq_len)
        if split_kv_end > split_kv_start:
            tv = tl.load(Mid_O + cur_batch * stride_mob + cur_head * stride_moh + split_kv_id * stride_mos
                         + offs_d * stride_mod)
            tlogic = tl.load(Mid_Lse + cur_batch * stride_mlb + cur_head * stride_mlh + split_kv_id * stride_mls)
            n_e_max = tl.maximum(tlogic, e_max)
            old_scale = tl.exp2(e_max - n_e_max)
            acc *= old_scale
            exp_logic = tl.exp2(tlogic - n_e_max)
            acc += exp_logic * tv
            e_sum = e_sum * old_scale + exp_logic
            e_max = n_e_max

    tl.store(O + cur_batch * stride_ob + cur_head * stride_oh + offs_d * stride_od, (acc / e_sum).to(tl.float16))


def decode_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, block_table: torch.Tensor,
                     seq_lens: torch.Tensor) -> torch.Tensor:
    B, H, D = q.shape
    _, page_size, H_kv, _ = k_cache.shape
    kv_group_num = H // H_kv
    num_kv_splits = 4
    BLOCK_N = 32
    BLOCK_H = max(16, triton.next_power_of_2(kv_group_num))
    mid_o = torch.empty((B, H, num_kv_splits, D), device=q.device, dtype=torch.float32)
    mid_lse = torch.empty((B, H, num_kv_splits), device=q.device, dtype=torch.float32)
    o = torch.empty((B, H, D), device=q.device, dtype=torch.float16)
    sm_scale_log2 = 1.0 / math.sqrt(D) * 1.4426950408889634

    _fwd_grouped_kernel_stage1[(B, H_kv, num_kv_splits)](
        q, k_cache, v_cache, block_table, seq_lens, mid_o, mid_lse,
        *q.stride(), *k_cache.stride(), *v_cache.stride(), *block_table.stride(),
        *mid_o.stride(), *mid_lse.stride(),
        sm_scale_log2,
        kv_group_num=kv_group_num, PAGE_SIZE=page_size, BLOCK_DMODEL=D, BLOCK_N=BLOCK_N, BLOCK_H=BLOCK_H,
        NUM_KV_SPLITS=num_kv_splits, num_warps=4, num_stages=2,
    )
    _fwd_kernel_stage2[(B, H)](
        mid_o, mid_lse, o, seq_lens,
        *mid_o.stride(), *mid_lse.stride(), *o.stride(),
        NUM_KV_SPLITS=num_kv_splits, BLOCK_DMODEL=D, num_warps=4,
    )
    return o
