# drill: decode-attention
# expect: pass
# sglang-style grouped decode (python/sglang/srt/layers/attention/triton_ops/decode_attention.py, rewritten): one
# program per (sequence, KV head, split) serves all the query heads of that KV head at once, padded to BLOCK_H = 16
# rows so q k^T is a tl.dot; the split length is per sequence, cdiv(seq_len, NUM_KV_SPLITS); the stage-1 output
# keeps the log-sum-exp in natural log next to the partial output.
import torch
import triton
import triton.language as tl


@triton.jit
def _fwd_grouped_stage1(Q, K_Buffer, V_Buffer, sm_scale, Req_to_page, B_Seqlen, Att_Out, Att_Lse,
                        stride_qbs, stride_qh, stride_buf_kbs, stride_buf_kt, stride_buf_kh,
                        stride_buf_vbs, stride_buf_vt, stride_buf_vh, stride_req_b,
                        stride_mid_ob, stride_mid_oh, stride_mid_os,
                        kv_group_num: tl.constexpr, q_head_num: tl.constexpr, PAGE_SIZE: tl.constexpr,
                        BLOCK_DMODEL: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_H: tl.constexpr,
                        NUM_KV_SPLITS: tl.constexpr):
    cur_batch = tl.program_id(0)
    cur_kv_head = tl.program_id(1)
    split_kv_id = tl.program_id(2)
    VALID_BLOCK_H: tl.constexpr = BLOCK_H if kv_group_num > BLOCK_H else kv_group_num
    cur_head = cur_kv_head * VALID_BLOCK_H + tl.arange(0, BLOCK_H)
    mask_h = (cur_head < (cur_kv_head + 1) * VALID_BLOCK_H) & (cur_head < q_head_num)
    offs_d = tl.arange(0, BLOCK_DMODEL)
    cur_batch_seq_len = tl.load(B_Seqlen + cur_batch)
    q = tl.load(Q + cur_batch * stride_qbs + cur_head[:, None] * stride_qh + offs_d[None, :],
                mask=mask_h[:, None], other=0.0)
    kv_len_per_split = tl.cdiv(cur_batch_seq_len, NUM_KV_SPLITS)
    split_kv_start = kv_len_per_split * split_kv_id
    split_kv_end = tl.minimum(split_kv_start + kv_len_per_split, cur_batch_seq_len)
    e_max = tl.zeros([BLOCK_H], dtype=tl.float32) - float("inf")
    e_sum = tl.zeros([BLOCK_H], dtype=tl.float32)
    acc = tl.zeros([BLOCK_H, BLOCK_DMODEL], dtype=tl.float32)
    if split_kv_end > split_kv_start:
        for start_n in range(split_kv_start, split_kv_end, BLOCK_N):
            offs_n = start_n + tl.arange(0, BLOCK_N)
            live = offs_n < split_kv_end
            page = tl.load(Req_to_page + stride_req_b * cur_batch + offs_n // PAGE_SIZE, mask=live, other=0)
            loc = page.to(tl.int64) * stride_buf_kbs + (offs_n % PAGE_SIZE) * stride_buf_kt
            k = tl.load(K_Buffer + loc[None, :] + cur_kv_head * stride_buf_kh + offs_d[:, None],
                        mask=live[None, :], other=0.0)
            qk = tl.dot(q, k.to(q.dtype)) * sm_scale
            qk = tl.where(mask_h[:, None] & live[None, :], qk, float("-inf"))
            vloc = page.to(tl.int64) * stride_buf_vbs + (offs_n % PAGE_SIZE) * stride_buf_vt
            v = tl.load(V_Buffer + vloc[:, None] + cur_kv_head * stride_buf_vh + offs_d[None, :],
                        mask=live[:, None], other=0.0)
            n_e_max = tl.maximum(tl.max(qk, 1), e_max)
            re_scale = tl.exp(e_max - n_e_max)
            p = tl.exp(qk - n_e_max[:, None])
            acc *= re_scale[:, None]
            acc += tl.dot(p.to(v.dtype), v)
            e_sum = e_sum * re_scale + tl.sum(p, 1)
            e_max = n_e_max
        offs_mid = cur_batch * stride_mid_ob + cur_head[:, None] * stride_mid_oh + split_kv_id * stride_mid_os \
            + offs_d[None, :]
        tl.store(Att_Out + offs_mid, acc / e_sum[:, None], mask=mask_h[:, None])
        tl.store(Att_Lse + (cur_batch * q_head_num + cur_head) * NUM_KV_SPLITS + split_kv_id,
                 e_max + tl.log(e_sum), mask=mask_h)


@triton.jit
def _fwd_kernel_stage2(Mid_O, Mid_Lse, O, B_Seqlen, stride_mid_ob, stride_mid_oh, stride_mid_os,
                       stride_obs, stride_oh, q_head_num: tl.constexpr, NUM_KV_SPLITS: tl.constexpr,
                       BLOCK_DV: tl.constexpr):
    cur_batch = tl.program_id(0)
    cur_head = tl.program_id(1)
    cur_batch_seq_len = tl.load(B_Seqlen + cur_batch)
    offs_d = tl.arange(0, BLOCK_DV)
    e_sum = 0.0
    e_max = -float("inf")
    acc = tl.zeros([BLOCK_DV], dtype=tl.float32)
    kv_len_per_split = tl.cdiv(cur_batch_seq_len, NUM_KV_SPLITS)
    for split_kv_id in range(0, NUM_KV_SPLITS):
        split_kv_start = kv_len_per_split * split_kv_id
        split_kv_end = tl.minimum(split_kv_start + kv_len_per_split, cur_batch_seq_len)
        if split_kv_end > split_kv_start:
            tv = tl.load(Mid_O + cur_batch * stride_mid_ob + cur_head * stride_mid_oh + split_kv_id * stride_mid_os
                         + offs_d)
            tlogic = tl.load(Mid_Lse + (cur_batch * q_head_num + cur_head) * NUM_KV_SPLITS + split_kv_id)
            n_e_max = tl.maximum(tlogic, e_max)
            old_scale = tl.exp(e_max - n_e_max)
            acc *= old_scale
            exp_logic = tl.exp(tlogic - n_e_max)
            acc += exp_logic * tv
            e_sum = e_sum * old_scale + exp_logic
            e_max = n_e_max
    tl.store(O + cur_batch * stride_obs + cur_head * stride_oh + offs_d, (acc / e_sum).to(tl.float16))


def decode_attention(q, k_cache, v_cache, block_table, seq_lens):
    batch, head_num, Lk = q.shape
    _, page_size, kv_heads, _ = k_cache.shape
    kv_group_num = head_num // kv_heads
    num_kv_splits = 4
    BLOCK_H = 16
    mid_o = torch.empty((batch, head_num, num_kv_splits, Lk), dtype=torch.float32, device=q.device)
    mid_lse = torch.empty((batch, head_num, num_kv_splits), dtype=torch.float32, device=q.device)
    o = torch.empty_like(q)
    grid = (batch, triton.cdiv(head_num, min(BLOCK_H, kv_group_num)), num_kv_splits)
    _fwd_grouped_stage1[grid](
        q, k_cache, v_cache, Lk ** -0.5, block_table, seq_lens, mid_o, mid_lse,
        q.stride(0), q.stride(1), k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        v_cache.stride(0), v_cache.stride(1), v_cache.stride(2), block_table.stride(0),
        mid_o.stride(0), mid_o.stride(1), mid_o.stride(2),
        kv_group_num=kv_group_num, q_head_num=head_num, PAGE_SIZE=page_size, BLOCK_DMODEL=Lk, BLOCK_N=32,
        BLOCK_H=BLOCK_H, NUM_KV_SPLITS=num_kv_splits)
    _fwd_kernel_stage2[(batch, head_num)](
        mid_o, mid_lse, o, seq_lens, mid_o.stride(0), mid_o.stride(1), mid_o.stride(2), o.stride(0), o.stride(1),
        q_head_num=head_num, NUM_KV_SPLITS=num_kv_splits, BLOCK_DV=Lk)
    return o
