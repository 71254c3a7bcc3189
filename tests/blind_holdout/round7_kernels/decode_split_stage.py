# drill: decode-attention
# Two-stage split-KV decode in the style of the sglang / lightllm Triton decode kernels, reading a vLLM paged cache.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _fwd_kernel_stage1(Q, K_Buffer, V_Buffer, sm_scale, Req_to_tokens, B_Seqlen, Att_Out, Att_Lse,
                       stride_req_to_tokens_b, stride_req_to_tokens_s, stride_qbs, stride_qh,
                       stride_buf_kbs, stride_buf_kt, stride_buf_kh,
                       stride_buf_vbs, stride_buf_vt, stride_buf_vh,
                       stride_mid_ob, stride_mid_oh, stride_mid_os, stride_lse_b, stride_lse_h,
                       kv_group_num: tl.constexpr, PAGE_SIZE: tl.constexpr, BLOCK_DMODEL: tl.constexpr,
                       BLOCK_N: tl.constexpr, NUM_KV_SPLITS: tl.constexpr):
    cur_batch = tl.program_id(0)
    cur_head = tl.program_id(1)
    split_kv_id = tl.program_id(2)
    cur_kv_head = cur_head // kv_group_num

    offs_d = tl.arange(0, BLOCK_DMODEL)
    cur_batch_seq_len = tl.load(B_Seqlen + cur_batch)
    off_q = cur_batch * stride_qbs + cur_head * stride_qh + offs_d
    q = tl.load(Q + off_q).to(tl.float32)

    kv_len_per_split = tl.cdiv(cur_batch_seq_len, NUM_KV_SPLITS)
    split_kv_start = kv_len_per_split * split_kv_id
    split_kv_end = tl.minimum(split_kv_start + kv_len_per_split, cur_batch_seq_len)

    e_max = -float("inf")
    e_sum = 0.0
    acc = tl.zeros([BLOCK_DMODEL], dtype=tl.float32)

    if split_kv_end > split_kv_start:
        for start_n in range(split_kv_start, split_kv_end, BLOCK_N):
            offs_n = start_n + tl.arange(0, BLOCK_N)
            kv_mask = offs_n < split_kv_end
            page = tl.load(Req_to_tokens + stride_req_to_tokens_b * cur_batch + (offs_n // PAGE_SIZE) * stride_req_to_tokens_s,
                           mask=kv_mask, other=0).to(tl.int64)
            slot = offs_n % PAGE_SIZE
            offs_buf_k = page[:, None] * stride_buf_kbs + slot[:, None] * stride_buf_kt \
                + cur_kv_head * stride_buf_kh + offs_d[None, :]
            k = tl.load(K_Buffer + offs_buf_k, mask=kv_mask[:, None], other=0.0).to(tl.float32)
            qk = tl.sum(q[None, :] * k, 1)
            qk *= sm_scale
            qk = tl.where(kv_mask, qk, float("-inf"))

            offs_buf_v = page[:, None] * stride_buf_vbs + slot[:, None] * stride_buf_vt \
                + cur_kv_head * stride_buf_vh + offs_d[None, :]
            v = tl.load(V_Buffer + offs_buf_v, mask=kv_mask[:, None], other=0.0).to(tl.float32)

            n_e_max = tl.maximum(tl.max(qk, 0), e_max)
            re_scale = tl.exp(e_max - n_e_max)
            p = tl.exp(qk - n_e_max)
            acc *= re_scale
            acc += tl.sum(p[:, None] * v, 0)
            e_sum = e_sum * re_scale + tl.sum(p, 0)
            e_max = n_e_max

        offs_mid_o = cur_batch * stride_mid_ob + cur_head * stride_mid_oh + split_kv_id * stride_mid_os + offs_d
        tl.store(Att_Out + offs_mid_o, acc / e_sum)
        tl.store(Att_Lse + cur_batch * stride_lse_b + cur_head * stride_lse_h + split_kv_id, e_max + tl.log(e_sum))


@triton.jit
def _fwd_kernel_stage2(Mid_O, Mid_lse, O, B_Seqlen, stride_mid_ob, stride_mid_oh, stride_mid_os,
                       stride_lse_b, stride_lse_h, stride_obs, stride_oh,
                       NUM_KV_SPLITS: tl.constexpr, BLOCK_DV: tl.constexpr):
    cur_batch = tl.program_id(0)
    cur_head = tl.program_id(1)
    cur_batch_seq_len = tl.load(B_Seqlen + cur_batch)
    offs_d = tl.arange(0, BLOCK_DV)

    e_sum = 0.0
    e_max = -float("inf")
    acc = tl.zeros([BLOCK_DV], dtype=tl.float32)

    offs_v = cur_batch * stride_mid_ob + cur_head * stride_mid_oh + offs_d
    offs_logic = cur_batch * stride_lse_b + cur_head * stride_lse_h
    kv_len_per_split = tl.cdiv(cur_batch_seq_len, NUM_KV_SPLITS)

    for split_kv_id in range(0, NUM_KV_SPLITS):
        split_kv_start = kv_len_per_split * split_kv_id
        split_kv_end = tl.minimum(split_kv_start + kv_len_per_split, cur_batch_seq_len)
        if split_kv_end > split_kv_start:
            tv = tl.load(Mid_O + offs_v + split_kv_id * stride_mid_os)
            tlogic = tl.load(Mid_lse + offs_logic + split_kv_id)
            n_e_max = tl.maximum(tlogic, e_max)
            old_scale = tl.exp(e_max - n_e_max)
            acc *= old_scale
            exp_logic = tl.exp(tlogic - n_e_max)
            acc += exp_logic * tv
            e_sum = e_sum * old_scale + exp_logic
            e_max = n_e_max

    tl.store(O + cur_batch * stride_obs + cur_head * stride_oh + offs_d, (acc / e_sum).to(O.dtype.element_ty))


def decode_attention(q, k_cache, v_cache, block_table, seq_lens):
    B, H, D = q.shape
    _, PAGE, H_kv, _ = k_cache.shape
    assert q.stride(2) == 1 and k_cache.stride(3) == 1 and v_cache.stride(3) == 1
    num_kv_splits = 4
    BLOCK_N = 32
    att_out = torch.empty((B, H, num_kv_splits, D), dtype=torch.float32, device=q.device)
    att_lse = torch.empty((B, H, num_kv_splits), dtype=torch.float32, device=q.device)
    o = torch.empty((B, H, D), dtype=q.dtype, device=q.device)
    sm_scale = 1.0 / math.sqrt(D)
    _fwd_kernel_stage1[(B, H, num_kv_splits)](
        q, k_cache, v_cache, sm_scale, block_table, seq_lens, att_out, att_lse,
        block_table.stride(0), block_table.stride(1), q.stride(0), q.stride(1),
        k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        v_cache.stride(0), v_cache.stride(1), v_cache.stride(2),
        att_out.stride(0), att_out.stride(1), att_out.stride(2), att_lse.stride(0), att_lse.stride(1),
        kv_group_num=H // H_kv, PAGE_SIZE=PAGE, BLOCK_DMODEL=D, BLOCK_N=BLOCK_N, NUM_KV_SPLITS=num_kv_splits,
        num_warps=4, num_stages=2)
    _fwd_kernel_stage2[(B, H)](
        att_out, att_lse, o, seq_lens, att_out.stride(0), att_out.stride(1), att_out.stride(2),
        att_lse.stride(0), att_lse.stride(1), o.stride(0), o.stride(1),
        NUM_KV_SPLITS=num_kv_splits, BLOCK_DV=D, num_warps=4, num_stages=2)
    return o
