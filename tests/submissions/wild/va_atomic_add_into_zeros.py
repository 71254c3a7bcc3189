# drill: vector-add
# expect: pass
# The output is written only by atomics: out starts at zero and each lane atomically adds x + y.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    s = tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m)
    tl.atomic_add(out_ptr + offs, s, mask=m)


def add(x, y):
    out = torch.zeros_like(x)
    n = out.numel()
    add_kernel[(triton.cdiv(n, 512),)](x, y, out, n, BLOCK=512)
    return out
