# drill: decode-attention
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _fwd_grouped_kernel_stage1(Q, K_Buffer, V_Buffer, sm_scale, Req_to_page, B_Seqlen, Att_Out, Att_Lse,
                               stride_qbs, stride_qh, stride_buf_kp, stride_buf_kt, stride_buf_kh,
                               stride_buf_vp, stride_buf_vt, stride_buf_vh, stride_req_b,
                               stride_mid_ob, stride_mid_oh, stride_mid_os, stride_lse_b, stride_lse_h,
                               kv_group_num: tl.constexpr, q_head_num: tl.constexpr, PAGE: tl.constexpr,
                               BLOCK_DMODEL: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_H: tl.constexpr,
                               SPLIT_LEN: tl.constexpr):
    # one program per (sequence, KV head, split): all kv_group_num query heads of that KV head at once
    cur_batch = tl.program_id(0)
    cur_kv_head = tl.program_id(1)
    split_kv_id = tl.program_id(2)
    cur_head = cur_kv_head * kv_group_num + tl.arange(0, BLOCK_H)
    mask_h = (cur_head < (cur_kv_head + 1) * kv_group_num) & (cur_head < q_head_num)
    offs_d = tl.arange(0, BLOCK_DMODEL)
    cur_batch_seq_len = tl.load(B_Seqlen + cur_batch)
    split_kv_start = split_kv_id * SPLIT_LEN
    split_kv_end = tl.minimum(split_kv_start + SPLIT_LEN, cur_batch_seq_len)

    q = tl.load(Q + cur_batch * stride_qbs + cur_head[:, None] * stride_qh + offs_d[None, :],
                mask=mask_h[:, None], other=0.0)
    e_max = tl.zeros([BLOCK_H], dtype=tl.float32) - float("inf")
    e_sum = tl.zeros([BLOCK_H], dtype=tl.float32)
    acc = tl.zeros([BLOCK_H, BLOCK_DMODEL], dtype=tl.float32)
    for start_n in range(split_kv_start, split_kv_end, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        n_mask = offs_n < split_kv_end
        kv_page = tl.load(Req_to_page + cur_batch * stride_req_b + offs_n // PAGE, mask=n_mask, other=0)
        kv_slot = offs_n % PAGE
        k = tl.load(K_Buffer + kv_page[None, :] * stride_buf_kp + kv_slot[None, :] * stride_buf_kt
                    + cur_kv_head * stride_buf_kh + offs_d[:, None], mask=n_mask[None, :], other=0.0)
        qk = tl.dot(q, k)  # (BLOCK_H, BLOCK_N)
        qk = qk * sm_scale
        qk = tl.where(mask_h[:, None] & n_mask[None, :], qk, float("-inf"))
        v = tl.load(V_Buffer + kv_page[:, None] * stride_buf_vp + kv_slot[:, None] * stride_buf_vt
                    + cur_kv_head * stride_buf_vh + offs_d[None, :], mask=n_mask[:, None], other=0.0)
        n_e_max = tl.maximum(tl.max(qk, 1), e_max)
        n_e_max_safe = tl.where(n_e_max == float("-inf"), 0.0, n_e_max)  # padded heads see only -inf
        re_scale = tl.exp(e_max - n_e_max_safe)
        p = tl.exp(qk - n_e_max_safe[:, None])
        acc *= re_scale[:, None]
        acc += tl.dot(p.to(v.dtype), v)
        e_sum = e_sum * re_scale + tl.sum(p, 1)
        e_max = n_e_max
    e_sum_safe = tl.maximum(e_sum, 1e-30)
    tl.store(Att_Out + cur_batch * stride_mid_ob + cur_head[:, None] * stride_mid_oh + split_kv_id * stride_mid_os
             + offs_d[None, :], acc / e_sum_safe[:, None], mask=mask_h[:, None])
    tl.store(Att_Lse + cur_batch * stride_lse_b + cur_head * stride_lse_h + split_kv_id,
             e_max + tl.log(e_sum_safe), mask=mask_h)


@triton.jit
def _fwd_kernel_stage2(Mid_O, Mid_O_LogExpSum, O, B_Seqlen, stride_mid_ob, stride_mid_oh, stride_mid_os,
                       stride_lse_b, stride_lse_h, stride_obs, stride_oh,
                       BLOCK_DMODEL: tl.constexpr, SPLIT_LEN: tl.constexpr):
    cur_batch = tl.program_id(0)
    cur_head = tl.program_id(1)
    cur_batch_seq_len = tl.load(B_Seqlen + cur_batch)
    offs_d = tl.arange(0, BLOCK_DMODEL)
    block_n_size = tl.cdiv(cur_batch_seq_len, SPLIT_LEN)
    sum_exp = 0.0
    max_logic = float("-inf")
    acc = tl.zeros([BLOCK_DMODEL], dtype=tl.float32)
    for block_seq_n in range(0, block_n_size, 1):
        tv = tl.load(Mid_O + cur_batch * stride_mid_ob + cur_head * stride_mid_oh + block_seq_n * stride_mid_os
                     + offs_d)
        tlogic = tl.load(Mid_O_LogExpSum + cur_batch * stride_lse_b + cur_head * stride_lse_h + block_seq_n)
        new_max_logic = tl.maximum(tlogic, max_logic)
        old_scale = tl.exp(max_logic - new_max_logic)
        acc *= old_scale
        exp_logic = tl.exp(tlogic - new_max_logic)
        acc += exp_logic * tv
        sum_exp = sum_exp * old_scale + exp_logic
        max_logic = new_max_logic
    tl.store(O + cur_batch * stride_obs + cur_head * stride_oh + offs_d, (acc / sum_exp).to(tl.float16))


def decode_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, block_table: torch.Tensor,
                     seq_lens: torch.Tensor) -> torch.Tensor:
    B, H, D = q.shape
    _, PAGE, H_kv, _ = k_cache.shape
    assert q.stride(2) == 1 and k_cache.stride(3) == 1 and v_cache.stride(3) == 1 and block_table.stride(1) == 1
    kv_group_num = H // H_kv
    BLOCK_N = 32
    max_len = block_table.shape[1] * PAGE
    num_kv_splits = min(8, triton.cdiv(max_len, BLOCK_N))
    split_len = triton.cdiv(triton.cdiv(max_len, num_kv_splits), BLOCK_N) * BLOCK_N
    num_kv_splits = triton.cdiv(max_len, split_len)
    BLOCK_H = max(16, triton.next_power_of_2(kv_group_num))
    att_out = torch.empty((B, H, num_kv_splits, D), dtype=torch.float32, device=q.device)
    att_lse = torch.empty((B, H, num_kv_splits), dtype=torch.float32, device=q.device)
    o = torch.empty((B, H, D), dtype=torch.float16, device=q.device)
    _fwd_grouped_kernel_stage1[(B, H_kv, num_kv_splits)](
        q, k_cache, v_cache, 1.0 / math.sqrt(D), block_table, seq_lens, att_out, att_lse,
        q.stride(0), q.stride(1), k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        v_cache.stride(0), v_cache.stride(1), v_cache.stride(2), block_table.stride(0),
        att_out.stride(0), att_out.stride(1), att_out.stride(2), att_lse.stride(0), att_lse.stride(1),
        kv_group_num=kv_group_num, q_head_num=H, PAGE=PAGE, BLOCK_DMODEL=D, BLOCK_N=BLOCK_N, BLOCK_H=BLOCK_H,
        SPLIT_LEN=split_len, num_warps=4)
    _fwd_kernel_stage2[(B, H)](
        att_out, att_lse, o, seq_lens, att_out.stride(0), att_out.stride(1), att_out.stride(2),
        att_lse.stride(0), att_lse.stride(1), o.stride(0), o.stride(1),
        BLOCK_DMODEL=D, SPLIT_LEN=split_len, num_warps=4)
    return o
