# drill: gelu
import torch
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers
from torch._inductor.runtime.triton_helpers import math as tl_math


@triton.jit
def triton_poi_fused_add_mul_tanh_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tmp1 = tl.full([1], 0.5, tl.float32)
    tmp2 = tmp0 * tmp1
    tmp3 = tmp0 * tmp0
    tmp4 = tmp3 * tmp0
    tmp5 = tl.full([1], 0.044715, tl.float32)
    tmp6 = tmp4 * tmp5
    tmp7 = tmp0 + tmp6
    tmp8 = tl.full([1], 0.7978845608028654, tl.float32)
    tmp9 = tmp7 * tmp8
    tmp14 = tl.full([1], 2.0, tl.float32)
    tmp15 = tl.sigmoid(tmp9 * tmp14)
    tmp11 = tl.full([1], 1.0, tl.float32)
    tmp10 = tmp15 * tmp14 - tmp11
    tmp12 = tmp10 + tmp11
    tmp13 = tmp2 * tmp12
    tl.store(out_ptr0 + (x0), tmp13, xmask)


def gelu(x: torch.Tensor) -> torch.Tensor:
    xnumel = x.numel()
    buf0 = torch.empty_strided(x.size(), x.stride(), device=x.device, dtype=x.dtype)
    grid = lambda meta: (triton.cdiv(xnumel, meta["XBLOCK"]),)
    triton_poi_fused_add_mul_tanh_0[grid](x, buf0, xnumel, XBLOCK=512, num_warps=4)
    return buf0
