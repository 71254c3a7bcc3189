# drill: fuse
# expect: fusion
# style: "reuse what I have": the vector-add kernel followed by a separate relu kernel
# why: two launches, and x + y is written to HBM by the first and read back by the second (5n*4 bytes, not 3n*4).
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def relu_kernel(in_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(in_ptr + offs, mask=m), 0.0), mask=m)


def add_relu(x, y):
    n = x.numel()
    tmp = torch.empty_like(x)
    out = torch.empty_like(x)
    grid = (triton.cdiv(n, 1024),)
    add_kernel[grid](x, y, tmp, n, BLOCK=1024)
    relu_kernel[grid](tmp, out, n, BLOCK=1024)
    return out
