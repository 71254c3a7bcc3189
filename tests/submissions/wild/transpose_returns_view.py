# drill: transpose
# expect: shape
# Copies x with a kernel and returns a .t() view: the shape is (N, M) but the memory layout is still x's.
import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src, dst, numel, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < numel
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)


def transpose(x):
    out = torch.empty_like(x)
    copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out.t()
