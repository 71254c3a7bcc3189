# drill: softmax
import torch
import triton
import triton.language as tl
from torch._inductor.runtime import triton_helpers
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math


@triton.jit
def triton_per_fused__softmax_0(in_out_ptr0, in_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = r0_index < r0_numel
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_1 + r0_numel*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(r0_mask & xmask, tmp1, float("-inf"))
    tmp4 = tl.broadcast_to(rindex, tmp3.shape)
    tmp2_val, tmp2_idx = triton_helpers.max_with_index(tmp3, tmp4, 1)
    tmp2 = tmp2_val[:, None]
    tmp5 = tmp0 - tmp2
    tmp6 = tl_math.exp(tmp5)
    tmp7 = tl.broadcast_to(tmp6, [XBLOCK, R0_BLOCK])
    tmp9 = tl.where(r0_mask & xmask, tmp7, 0)
    tmp10 = tl.sum(tmp9, 1)[:, None].to(tl.float32)
    tmp11 = (tmp6 / tmp10)
    tl.store(in_out_ptr0 + (r0_1 + r0_numel*x0), tmp11, r0_mask & xmask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    xnumel, r0_numel = x.shape
    buf2 = torch.empty_strided((xnumel, r0_numel), (r0_numel, 1), device=x.device, dtype=torch.float32)
    R0_BLOCK = triton.next_power_of_2(r0_numel)
    XBLOCK = 1 if R0_BLOCK >= 2048 else 4
    num_warps = 4 if R0_BLOCK <= 2048 else 8
    grid = (triton.cdiv(xnumel, XBLOCK), 1, 1)
    triton_per_fused__softmax_0[grid](buf2, x, xnumel, r0_numel, XBLOCK=XBLOCK, R0_BLOCK=R0_BLOCK,
                                      num_warps=num_warps, num_stages=1)
    return buf2
