# drill: attention
# expect: fusion
# The "naive Triton" attention a candidate writes first: kernel 1 computes the (S, S) scores into a scratch
# buffer, kernel 2 does softmax and @ V row by row. Right values, but the scores go through global memory.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def scores_kernel(q_ptr, k_ptr, s_ptr, S, D: tl.constexpr, scale, BLOCK: tl.constexpr):
    bh = tl.program_id(0)
    row = tl.program_id(1)
    cols = tl.arange(0, BLOCK)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + bh * S * D + row * D + d).to(tl.float32)
    k = tl.load(k_ptr + bh * S * D + cols[:, None] * D + d[None, :], mask=cols[:, None] < S, other=0.0)
    s = tl.sum(k.to(tl.float32) * q[None, :], axis=1) * scale
    tl.store(s_ptr + bh * S * S + row * S + cols, s, mask=cols < S)


@triton.jit
def softmax_v_kernel(s_ptr, v_ptr, o_ptr, S, D: tl.constexpr, BLOCK: tl.constexpr, CAUSAL: tl.constexpr):
    bh = tl.program_id(0)
    row = tl.program_id(1)
    cols = tl.arange(0, BLOCK)
    d = tl.arange(0, D)
    s = tl.load(s_ptr + bh * S * S + row * S + cols, mask=cols < S, other=-float("inf"))
    if CAUSAL:
        s = tl.where(cols <= row, s, -float("inf"))
    p = tl.exp(s - tl.max(s, axis=0))
    p = p / tl.sum(p, axis=0)
    v = tl.load(v_ptr + bh * S * D + cols[:, None] * D + d[None, :], mask=cols[:, None] < S, other=0.0)
    o = tl.sum(p[:, None] * v.to(tl.float32), axis=0)
    tl.store(o_ptr + bh * S * D + row * D + d, o.to(tl.float16))


def attention(q, k, v, causal=False):
    B, H, S, D = q.shape
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    scores = torch.empty((B * H, S, S), device=q.device, dtype=torch.float32)
    o = torch.empty_like(q)
    BLOCK = triton.next_power_of_2(S)
    scores_kernel[(B * H, S)](q, k, scores, S, D, 1.0 / math.sqrt(D), BLOCK=BLOCK)
    softmax_v_kernel[(B * H, S)](scores, v, o, S, D, BLOCK=BLOCK, CAUSAL=causal)
    return o
