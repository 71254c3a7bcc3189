# drill: decode-attention
import math

import torch
import triton
import triton.language as tl


@triton.jit
def paged_decode_v1_kernel(out_ptr, q_ptr, k_ptr, v_ptr, bt_ptr, lens_ptr, qk_scale,
                           s_qb, s_qh, s_kp, s_kt, s_kh, s_vp, s_vt, s_vh, s_btb, s_ob, s_oh,
                           GROUP: tl.constexpr, PAGE: tl.constexpr, D: tl.constexpr, TOK_P2: tl.constexpr):
    # one program per (sequence, query head) walks every page of its sequence: a single launch, no split buffers
    b = tl.program_id(0)
    h = tl.program_id(1)
    kvh = h // GROUP
    L = tl.load(lens_ptr + b)
    d = tl.arange(0, D)
    t = tl.arange(0, TOK_P2)
    q = tl.load(q_ptr + b * s_qb + h * s_qh + d).to(tl.float32) * qk_scale
    m = tl.full([1], float("-inf"), tl.float32)
    l = tl.zeros([1], dtype=tl.float32)
    acc = tl.zeros([D], dtype=tl.float32)
    for j in range(0, tl.cdiv(L, PAGE)):
        phys = tl.load(bt_ptr + b * s_btb + j).to(tl.int64)
        ok = (t < PAGE) & (j * PAGE + t < L)
        k = tl.load(k_ptr + phys * s_kp + t[:, None] * s_kt + kvh * s_kh + d[None, :], mask=ok[:, None], other=0.)
        s = tl.sum(k.to(tl.float32) * q[None, :], 1)
        s = tl.where(ok, s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, 0))
        p = tl.exp2(s - m_new)
        a = tl.exp2(m - m_new)
        v = tl.load(v_ptr + phys * s_vp + t[:, None] * s_vt + kvh * s_vh + d[None, :], mask=ok[:, None], other=0.)
        acc = acc * a + tl.sum(p[:, None] * v.to(tl.float32), 0)
        l = l * a + tl.sum(p, 0)
        m = m_new
    o = acc / l
    tl.store(out_ptr + b * s_ob + h * s_oh + d, o.to(tl.float16))


def decode_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, block_table: torch.Tensor,
                     seq_lens: torch.Tensor) -> torch.Tensor:
    B, H, D = q.shape
    _, PAGE, H_kv, _ = k_cache.shape
    assert q.stride(2) == 1 and k_cache.stride(3) == 1 and v_cache.stride(3) == 1 and block_table.stride(1) == 1
    out = torch.empty((B, H, D), dtype=torch.float16, device=q.device)
    paged_decode_v1_kernel[(B, H)](out, q, k_cache, v_cache, block_table, seq_lens,
                                   1.4426950408889634 / math.sqrt(D),
                                   q.stride(0), q.stride(1), k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
                                   v_cache.stride(0), v_cache.stride(1), v_cache.stride(2), block_table.stride(0),
                                   out.stride(0), out.stride(1),
                                   GROUP=H // H_kv, PAGE=PAGE, D=D, TOK_P2=triton.next_power_of_2(PAGE), num_warps=4)
    return out
