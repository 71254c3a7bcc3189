# drill: fuse
# expect: pass
"""BLOCK_SIZE 2048 with num_warps=8, and a grid lambda that follows BLOCK_SIZE."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_relu_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    s = tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(s, 0.0), mask=mask)


def add_relu(x, y):
    n = x.numel()
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
    add_relu_kernel[grid](x, y, out, n, BLOCK_SIZE=2048, num_warps=8)
    return out
