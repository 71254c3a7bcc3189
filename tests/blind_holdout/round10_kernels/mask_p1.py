# drill: mask
import torch
import triton
import triton.language as tl
from torch._inductor.runtime import triton_helpers
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math


@triton.jit
def triton_poi_fused_add_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 100000
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tmp1 = tl.load(in_ptr1 + (x0), xmask)
    tmp2 = tmp0 + tmp1
    tl.store(out_ptr0 + (x0), tmp2, xmask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    n_elements = x.numel()
    buf0 = torch.empty_strided((n_elements,), (1,), device=x.device, dtype=torch.float32)
    XBLOCK = 1024
    grid = (triton.cdiv(n_elements, XBLOCK), 1, 1)
    triton_poi_fused_add_0[grid](x, y, buf0, n_elements, XBLOCK=XBLOCK, num_warps=4, num_stages=1)
    return buf0
