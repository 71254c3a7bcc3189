# drill: transpose
# Inductor's tiled 2-D pointwise kernel for x.t().contiguous() (triton_poi_fused_clone_0), dynamic sizes.
import torch
import triton
import triton.language as tl
from torch._inductor.runtime import triton_helpers
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math


@triton.jit
def triton_poi_fused_clone_t_0(in_ptr0, out_ptr0, ks0, ks1, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x1 = xindex
    y0 = yindex
    tmp0 = tl.load(in_ptr0 + (y0 + ks0*x1), xmask & ymask, eviction_policy='evict_last')
    tl.store(out_ptr0 + (x1 + ks1*y0), tmp0, xmask & ymask)


def transpose(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    buf0 = torch.empty_strided((N, M), (M, 1), device=x.device, dtype=x.dtype)
    # ynumel walks the output's rows (x's columns), xnumel its columns (x's rows)
    ynumel, xnumel = N, M
    YBLOCK, XBLOCK = 32, 32
    triton_poi_fused_clone_t_0[(triton.cdiv(xnumel, XBLOCK), triton.cdiv(ynumel, YBLOCK), 1)](
        x, buf0, N, M, ynumel, xnumel, YBLOCK=YBLOCK, XBLOCK=XBLOCK, num_warps=4)
    return buf0
