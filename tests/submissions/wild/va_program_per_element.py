# drill: vector-add
# expect: grid
# One program per element, each still handling a whole BLOCK tile: programs past the first cdiv(n, BLOCK) are
# fully masked off, so almost all of the launch does nothing.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(n,)](x, y, out, n, BLOCK=1024)
    return out
