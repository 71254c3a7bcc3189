# drill: softmax
# expect: pass
"""The Triton kernel torch 2.13's Inductor generates for torch.softmax(x, dim=-1) with dynamic shapes (CPU, Triton
backend through drill's interpreter patch; 2026-12-01), copied exactly: a looped (triton_red) reduction calling
triton_helpers.maximum and triton_helpers.max2 (a tl.reduce with a @triton.jit combine function: the interpreter ran
it element by element, minutes per call, until drill reduced it as a tree) and libdevice.exp. Left out: the
@triton_heuristics.reduction(...) decorator and set_driver_to_cpu() (Inductor's launcher). The wrapper passes what
Inductor's call() passes: (buf, x, ks0=N, xnumel=M, r0_numel=N), grid cdiv(M, XBLOCK)."""
import torch
import triton
import triton.language as tl
from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties


@triton.jit
def triton_red_fused__softmax_0(in_out_ptr0, in_ptr0, ks0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x0 = xindex
    _tmp2 = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp0 = tl.load(in_ptr0 + (r0_1 + ks0*x0), r0_mask & xmask, eviction_policy='evict_last', other=0.0)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
        tmp3 = triton_helpers.maximum(_tmp2, tmp1)
        _tmp2 = tl.where(r0_mask & xmask, tmp3, _tmp2)
    tmp2 = triton_helpers.max2(_tmp2, 1)[:, None]
    _tmp8 = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp4 = tl.load(in_ptr0 + (r0_1 + ks0*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
        tmp5 = tmp4 - tmp2
        tmp6 = libdevice.exp(tmp5)
        tmp7 = tl.broadcast_to(tmp6, [XBLOCK, R0_BLOCK])
        tmp9 = _tmp8 + tmp7
        _tmp8 = tl.where(r0_mask & xmask, tmp9, _tmp8)
        tl.store(in_out_ptr0 + (r0_1 + ks0*x0), tmp6, r0_mask & xmask)
    tmp8 = tl.sum(_tmp8, 1)[:, None]
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp10 = tl.load(in_out_ptr0 + (r0_1 + ks0*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
        tmp11 = (tmp10 / tmp8)
        tl.store(in_out_ptr0 + (r0_1 + ks0*x0), tmp11, r0_mask & xmask)


def softmax(x):
    M, N = x.shape
    buf = torch.empty_strided((M, N), (N, 1), device=x.device, dtype=torch.float32)
    triton_red_fused__softmax_0[(triton.cdiv(M, 1),)](buf, x, N, M, N, XBLOCK=1, R0_BLOCK=1024)
    return buf
