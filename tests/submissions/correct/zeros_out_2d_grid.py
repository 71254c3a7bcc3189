# drill: vector-add
# expect: pass
"""Output from torch.zeros, offsets built with tl.program_id and a block pointer-free int64 cast."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x + y, mask=mask)


def add(x, y):
    out = torch.zeros(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 128),)](x, y, out, n, BLOCK=128, num_warps=1)
    return out
