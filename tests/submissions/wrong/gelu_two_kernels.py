# drill: gelu
# expect: fusion
"""GELU split in two kernels: the inner polynomial goes to memory, tanh and the product come in a second launch."""
import torch
import triton
import triton.language as tl


@triton.jit
def inner_kernel(x_ptr, t_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(t_ptr + offs, 0.7978845608028654 * (x + 0.044715 * x * x * x), mask=m)


@triton.jit
def outer_kernel(x_ptr, t_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    t = tl.load(t_ptr + offs, mask=m)
    tl.store(out_ptr + offs, 0.5 * x * (1.0 + (2.0 * tl.sigmoid(2.0 * t) - 1.0)), mask=m)


def gelu(x):
    n = x.numel()
    t = torch.empty_like(x)
    out = torch.empty_like(x)
    grid = (triton.cdiv(n, 1024),)
    inner_kernel[grid](x, t, n, BLOCK_SIZE=1024)
    outer_kernel[grid](x, t, out, n, BLOCK_SIZE=1024)
    return out
