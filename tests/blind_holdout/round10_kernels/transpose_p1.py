# drill: transpose
import torch
import triton
import triton.language as tl
from torch._inductor.runtime import triton_helpers
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math


@triton.jit
def triton_poi_fused_clone_t_0(in_ptr0, out_ptr0, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x1 = xindex
    y0 = yindex
    tmp0 = tl.load(in_ptr0 + (y0 + ynumel*x1), xmask & ymask)
    tl.store(out_ptr0 + (x1 + xnumel*y0), tmp0, xmask & ymask)


def transpose(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    # out (N, M): y walks out's rows (x's columns), x walks out's columns (x's rows)
    ynumel, xnumel = N, M
    buf0 = torch.empty_strided((N, M), (M, 1), device=x.device, dtype=torch.float32)
    YBLOCK, XBLOCK = 32, 32
    grid = (triton.cdiv(xnumel, XBLOCK), triton.cdiv(ynumel, YBLOCK), 1)
    triton_poi_fused_clone_t_0[grid](x, buf0, ynumel, xnumel, YBLOCK=YBLOCK, XBLOCK=XBLOCK, num_warps=4, num_stages=1)
    return buf0
