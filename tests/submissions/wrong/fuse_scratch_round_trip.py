# drill: fuse
# expect: fusion
"""One kernel, but x + y is stored to a scratch buffer and loaded back: the round trip fusion should remove.

One launch per call, so only the byte count shows it: 5·n·4 bytes move instead of 3·n·4.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def add_relu_kernel(x_ptr, y_ptr, t_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    tl.store(t_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)
    t = tl.load(t_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(t, 0.0), mask=mask)


def add_relu(x, y):
    n = x.numel()
    t = torch.empty_like(x)
    out = torch.empty_like(x)
    add_relu_kernel[(triton.cdiv(n, 1024),)](x, y, t, out, n, BLOCK_SIZE=1024)
    return out
