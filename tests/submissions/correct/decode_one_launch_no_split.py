# drill: decode-attention
# expect: pass
# A nervous candidate: no split at all, one program per (sequence, query head) walks the whole sequence one page
# at a time and normalises at the end. Correct (one launch is "at most two"); on a GPU it leaves SMs idle for a
# small batch of long sequences, which is what split-KV is for.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def decode_kernel(q_ptr, k_ptr, v_ptr, bt_ptr, lens_ptr, o_ptr, H, H_KV, MAX_BLOCKS, scale,
                  D: tl.constexpr, PAGE: tl.constexpr):
    b = tl.program_id(0)
    h = tl.program_id(1)
    kvh = h // (H // H_KV)
    n = tl.load(lens_ptr + b)
    d = tl.arange(0, D)
    t = tl.arange(0, PAGE)
    q = tl.load(q_ptr + (b * H + h) * D + d).to(tl.float32)
    m = -float("inf")
    l = 0.0
    acc = tl.zeros([D], dtype=tl.float32)
    for j in range(0, tl.cdiv(n, PAGE)):
        blk = tl.load(bt_ptr + b * MAX_BLOCKS + j)
        here = j * PAGE + t < n
        off = ((blk * PAGE + t[:, None]) * H_KV + kvh) * D + d[None, :]
        k = tl.load(k_ptr + off, mask=here[:, None], other=0.0).to(tl.float32)
        s = tl.sum(k * q[None, :], axis=1) * scale
        s = tl.where(here, s, -float("inf"))
        mn = tl.maximum(m, tl.max(s, axis=0))
        p = tl.exp(s - mn)
        a = tl.exp(m - mn)
        v = tl.load(v_ptr + off, mask=here[:, None], other=0.0).to(tl.float32)
        acc = acc * a + tl.sum(p[:, None] * v, axis=0)
        l = l * a + tl.sum(p, axis=0)
        m = mn
    tl.store(o_ptr + (b * H + h) * D + d, (acc / l).to(tl.float16))


def decode_attention(q, k_cache, v_cache, block_table, seq_lens):
    B, H, D = q.shape
    assert q.is_contiguous() and k_cache.is_contiguous() and v_cache.is_contiguous()
    o = torch.empty_like(q)
    decode_kernel[(B, H)](q, k_cache, v_cache, block_table, seq_lens, o, H, k_cache.shape[2], block_table.shape[1],
                          1 / math.sqrt(D), D=D, PAGE=k_cache.shape[1])
    return o
