# drill: vector-add
# expect: mask
# Loads are masked but the atomic that writes the result is not: the tail lanes add into memory past the end.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    s = tl.load(x_ptr + offs, mask=m, other=0.0) + tl.load(y_ptr + offs, mask=m, other=0.0)
    tl.atomic_add(out_ptr + offs, s)


def add(x, y):
    out = torch.zeros_like(x)
    n = out.numel()
    add_kernel[(triton.cdiv(n, 512),)](x, y, out, n, BLOCK=512)
    return out
