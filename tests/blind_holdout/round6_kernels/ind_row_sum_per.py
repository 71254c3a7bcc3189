# drill: row-sum
# Inductor's persistent reduction for x.sum(1) (triton_per_fused_sum_0), as generated with a dynamic row length.
import torch
import triton
import triton.language as tl
from torch._inductor.runtime import triton_helpers
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math


@triton.jit
def triton_per_fused_sum_0(in_ptr0, out_ptr0, ks0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
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
    tmp0 = tl.load(in_ptr0 + (r0_1 + ks0*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(r0_mask & xmask, tmp1, 0)
    tmp4 = tl.sum(tmp3, 1)[:, None].to(tl.float32)
    tl.store(out_ptr0 + (x0), tmp4, xmask)


def row_sum(x: torch.Tensor) -> torch.Tensor:
    xnumel, r0_numel = x.shape
    buf0 = torch.empty_strided((xnumel,), (1,), device=x.device, dtype=torch.float32)
    R0_BLOCK = triton.next_power_of_2(r0_numel)
    XBLOCK = 8 if R0_BLOCK <= 256 else 1
    triton_per_fused_sum_0[(triton.cdiv(xnumel, XBLOCK), 1, 1)](x, buf0, r0_numel, xnumel, r0_numel,
                                                              XBLOCK=XBLOCK, R0_BLOCK=R0_BLOCK, num_warps=8)
    return buf0
