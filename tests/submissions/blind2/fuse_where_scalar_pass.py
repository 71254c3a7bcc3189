# drill: fuse
# expect: pass
# style: Inductor-like naming (xoffset/xindex/xmask, tmp0..tmp4) with tl.where(tmp2 > 0, tmp2, 0.0) and a scalar other
# why: tl.where with a Python scalar broadcasts; relu(x + y) computed in registers in one kernel with the tail masked.
import torch
import triton
import triton.language as tl


@triton.jit
def triton_poi_fused_add_relu_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tmp1 = tl.load(in_ptr1 + (x0), xmask)
    tmp2 = tmp0 + tmp1
    tmp3 = 0.0
    tmp4 = tl.where(tmp2 > tmp3, tmp2, tmp3)
    tl.store(out_ptr0 + (x0), tmp4, xmask)


def add_relu(x, y):
    buf0 = torch.empty_strided(x.size(), x.stride(), device=x.device, dtype=torch.float32)
    xnumel = x.numel()
    triton_poi_fused_add_relu_0[(triton.cdiv(xnumel, 512),)](x, y, buf0, xnumel, XBLOCK=512, num_warps=4, num_stages=1)
    return buf0
