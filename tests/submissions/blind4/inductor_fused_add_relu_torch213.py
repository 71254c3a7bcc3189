# drill: fuse
# expect: pass
"""The Triton kernel torch 2.13's Inductor generates for relu(x + y) with dynamic shapes (CPU, Triton backend through
drill's interpreter patch; 2026-12-01), copied exactly from its output code: the imports and everything from
@triton.jit on. Left out: the @triton_heuristics.pointwise(...) decorator and triton_helpers.set_driver_to_cpu(),
Inductor's launcher and driver selection, not kernel code. The wrapper launches it as Inductor's call() does:
grid cdiv(xnumel, XBLOCK). It calls triton_helpers.maximum, a @triton.jit helper of another module, which the
compile check used to refuse (issue 17, item 1)."""
import torch
import triton
import triton.language as tl
from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties


@triton.jit
def triton_poi_fused_add_relu_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tmp1 = tl.load(in_ptr1 + (x0), xmask)
    tmp2 = tmp0 + tmp1
    tmp3 = tl.full([1], 0, tl.int32)
    tmp4 = triton_helpers.maximum(tmp3, tmp2)
    tl.store(out_ptr0 + (x0), tmp4, xmask)


def add_relu(x, y):
    out = torch.empty_like(x)
    xnumel = x.numel()
    triton_poi_fused_add_relu_0[(triton.cdiv(xnumel, 1024),)](x, y, out, xnumel, XBLOCK=1024)
    return out
