# drill: fuse
# expect: pass
"""relu written as tl.where(s > 0, s, 0): same values as tl.maximum."""
import torch
import triton
import triton.language as tl

@triton.jit
def add_relu_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(x + y > 0, x + y, 0.0), mask=mask)


def add_relu(x, y):
    n = x.numel()
    out = torch.empty_like(x)
    add_relu_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
    return out
