# drill: grid
# expect: grid
# says: store nothing
"""A 'safety margin' grid: twice the tiles it needs. Every value is right, but half the programs are masked off
entirely and store nothing; in the grid drill that is the mistake the lesson is about."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    grid = (triton.cdiv(n_elements, 1024) + triton.cdiv(n_elements, 1024),)  # "one extra tile per tile, to be safe"
    add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=1024)
    return out
