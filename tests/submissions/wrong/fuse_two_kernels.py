# drill: fuse
# expect: fusion
"""Add in one kernel, relu in a second: x + y makes a round trip through memory (2 launches per call)."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def relu_kernel(t_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(t_ptr + offs, mask=m), 0.0), mask=m)


def add_relu(x, y):
    n = x.numel()
    t = torch.empty_like(x)
    out = torch.empty_like(x)
    grid = (triton.cdiv(n, 1024),)
    add_kernel[grid](x, y, t, n, BLOCK_SIZE=1024)
    relu_kernel[grid](t, out, n, BLOCK_SIZE=1024)
    return out
