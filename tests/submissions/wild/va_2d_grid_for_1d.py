# drill: vector-add
# expect: grid
# A 2-D grid for a 1-D problem: the kernel only reads program_id(0), so every program along axis 1 recomputes the
# same tile. Values are right; the work is done cdiv(n, BLOCK) times over.
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
    tiles = triton.cdiv(n, 1024)
    add_kernel[(tiles, tiles)](x, y, out, n, BLOCK=1024)
    return out
