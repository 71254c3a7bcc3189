import math

import torch
import triton
import triton.language as tl


@triton.jit
def _split_kv_pages_kernel(
    q_ptr, k_ptr, v_ptr, table_ptr, lens_ptr, acc_ptr, m_ptr, l_ptr,
    sqb, sqh, sqd,
    skp, skt, skh, skd,
    svp, svt, svh, svd,
    stb, stj,
    sab, sah, sas, sad,
    smb, smh, sms,
    qk_scale,
    GROUP: tl.constexpr, BLOCK_H: tl.constexpr, PAGE: tl.constexpr, PAGE_P2: tl.constexpr,
    HEAD_DIM: tl.constexpr, PAGES_PER_SPLIT: tl.constexpr,
):
    b = tl.program_id(0)
    kvh = tl.program_id(1)
    sp = tl.program_id(2)

    rows = tl.arange(0, BLOCK_H)
    row_ok = rows < GROUP
    heads = kvh * GROUP + rows
    dd = tl.arange(0, HEAD_DIM)
    tt = tl.arange(0, PAGE_P2)

    n_tok = tl.load(lens_ptr + b)
    n_pages = (n_tok + PAGE - 1) // PAGE
    j_lo = sp * PAGES_PER_SPLIT
    j_hi = tl.minimum(j_lo + PAGES_PER_SPLIT, n_pages)

    qt = tl.load(q_ptr + b * sqb + heads[:, None] * sqh + dd[None, :] * sqd, mask=row_ok[:, None], other=0.0)

    m = tl.full([BLOCK_H], -1.0e30, dtype=tl.float32)
    l = tl.zeros([BLOCK_H], dtype=tl.float32)
    acc = tl.zeros([BLOCK_H, HEAD_DIM], dtype=tl.float32)
    for j in range(j_lo, j_hi):
        pg = tl.load(table_ptr + b * stb + j * stj).to(tl.int64)
        ok = (tt < PAGE) & (j * PAGE + tt < n_tok)
        kt = tl.load(k_ptr + pg * skp + tt[:, None] * skt + kvh * skh + dd[None, :] * skd,
                     mask=ok[:, None], other=0.0)
        vt = tl.load(v_ptr + pg * svp + tt[:, None] * svt + kvh * svh + dd[None, :] * svd,
                     mask=ok[:, None], other=0.0)
        s = tl.dot(qt, tl.trans(kt)) * qk_scale
        s = tl.where(ok[None, :], s, -1.0e30)
        m_new = tl.maximum(m, tl.max(s, axis=1))
        corr = tl.exp2(m - m_new)
        p = tl.exp2(s - m_new[:, None])
        p = tl.where(ok[None, :], p, 0.0)
        l = l * corr + tl.sum(p, axis=1)
        acc = acc * corr[:, None] + tl.dot(p.to(tl.float16), vt)
        m = m_new

    tl.store(acc_ptr + b * sab + heads[:, None] * sah + sp * sas + dd[None, :] * sad, acc, mask=row_ok[:, None])
    tl.store(m_ptr + b * smb + heads * smh + sp * sms, m, mask=row_ok)
    tl.store(l_ptr + b * smb + heads * smh + sp * sms, l, mask=row_ok)


@triton.jit
def _merge_splits_kernel(
    acc_ptr, m_ptr, l_ptr, out_ptr,
    sab, sah, sas, sad,
    smb, smh, sms,
    sob, soh, sod,
    N_SPLITS: tl.constexpr, SPLITS_P2: tl.constexpr, HEAD_DIM: tl.constexpr,
):
    b = tl.program_id(0)
    h = tl.program_id(1)
    ss = tl.arange(0, SPLITS_P2)
    dd = tl.arange(0, HEAD_DIM)
    s_ok = ss < N_SPLITS
    m = tl.load(m_ptr + b * smb + h * smh + ss * sms, mask=s_ok, other=-1.0e30)
    l = tl.load(l_ptr + b * smb + h * smh + ss * sms, mask=s_ok, other=0.0)
    acc = tl.load(acc_ptr + b * sab + h * sah + ss[:, None] * sas + dd[None, :] * sad,
                  mask=s_ok[:, None], other=0.0)
    m_all = tl.max(m, axis=0)
    f = tl.exp2(m - m_all)
    f = tl.where(s_ok & (l > 0), f, 0.0)
    num = tl.sum(acc * f[:, None], axis=0)
    den = tl.sum(l * f, axis=0)
    tl.store(out_ptr + b * sob + h * soh + dd * sod, (num / den).to(tl.float16))


def decode_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, block_table: torch.Tensor,
                     seq_lens: torch.Tensor) -> torch.Tensor:
    B, H, D = q.shape
    _, page, H_kv, _ = k_cache.shape
    group = H // H_kv
    max_pages = block_table.shape[1]
    pages_per_split = max(1, triton.cdiv(max_pages, 4))
    n_splits = triton.cdiv(max_pages, pages_per_split)
    acc = torch.empty((B, H, n_splits, D), device=q.device, dtype=torch.float32)
    m = torch.empty((B, H, n_splits), device=q.device, dtype=torch.float32)
    l = torch.empty((B, H, n_splits), device=q.device, dtype=torch.float32)
    out = torch.empty((B, H, D), device=q.device, dtype=torch.float16)
    _split_kv_pages_kernel[(B, H_kv, n_splits)](
        q, k_cache, v_cache, block_table, seq_lens, acc, m, l,
        *q.stride(), *k_cache.stride(), *v_cache.stride(), *block_table.stride(),
        *acc.stride(), *m.stride(),
        1.4426950408889634 / math.sqrt(D),
        GROUP=group, BLOCK_H=max(16, triton.next_power_of_2(group)), PAGE=page,
        PAGE_P2=max(16, triton.next_power_of_2(page)), HEAD_DIM=D, PAGES_PER_SPLIT=pages_per_split,
        num_warps=4,
    )
    _merge_splits_kernel[(B, H)](
        acc, m, l, out, *acc.stride(), *m.stride(), *out.stride(),
        N_SPLITS=n_splits, SPLITS_P2=triton.next_power_of_2(n_splits), HEAD_DIM=D, num_warps=4,
    )
    return out
