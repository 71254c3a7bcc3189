# drill: softmax
# expect: mask
# also-ok: other
# (other=-inf on the first load fixes it too: exp(-inf - m) then adds nothing to the running sum)
# blind round 4, seen half (a helper who never read the grader; kept after re-checking the expectation)
import torch
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers
from torch._inductor.runtime.triton_helpers import math as tl_math


@triton.jit
def triton_red_fused__softmax_0(in_ptr0, out_ptr2, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x0 = xindex
    _tmp2_max = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    _tmp2_sum = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    for r0_offset in range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp0 = tl.load(in_ptr0 + (r0_1 + r0_numel*x0), r0_mask & xmask, eviction_policy='evict_last', other=0.0)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
        _tmp2_max_next = triton_helpers.maximum(_tmp2_max, tmp1)
        _tmp2_sum = _tmp2_sum * tl_math.exp(_tmp2_max - _tmp2_max_next) + tl_math.exp(tmp1 - _tmp2_max_next)
        _tmp2_max = tl.where(r0_mask & xmask, _tmp2_max_next, _tmp2_max)
    tmp2_row_max = triton_helpers.max2(_tmp2_max, 1)[:, None]
    tmp2_row_sum = tl.sum(_tmp2_sum * tl_math.exp(_tmp2_max - tmp2_row_max), 1)[:, None]
    tmp2 = tmp2_row_max
    tmp3 = tmp2_row_sum
    for r0_offset in range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp4 = tl.load(in_ptr0 + (r0_1 + r0_numel*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
        tmp5 = tmp4 - tmp2
        tmp6 = tl_math.exp(tmp5)
        tmp7 = tmp6 / tmp3
        tl.store(out_ptr2 + (r0_1 + r0_numel*x0), tmp7, r0_mask & xmask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    xnumel, r0_numel = x.shape
    buf2 = torch.empty_strided((xnumel, r0_numel), (r0_numel, 1), device=x.device, dtype=torch.float32)
    XBLOCK, R0_BLOCK = 1, 256
    grid = (triton.cdiv(xnumel, XBLOCK), 1, 1)
    triton_red_fused__softmax_0[grid](x, buf2, xnumel, r0_numel, XBLOCK=XBLOCK, R0_BLOCK=R0_BLOCK, num_warps=2)
    return buf2
