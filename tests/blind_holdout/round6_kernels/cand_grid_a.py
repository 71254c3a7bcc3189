# drill: grid
"""The grid hole: how many programs to launch.

Each program handles one BLOCK_SIZE tile. Launch enough programs to cover every element, the partial last tile
included. A tuple works; so does a lambda over `meta` (then it follows whatever BLOCK_SIZE the launch uses).
Then `drill grade grid.py`. Stuck? `drill hint grid`.
"""
import torch
import triton
import triton.language as tl


def HOLE(what: str):
    """A hole for you to fill. `drill grade` reports every HOLE(...) still in this file, with its line."""
    raise NotImplementedError(f"fill the hole: {what}")


@triton.jit
def add_kernel(x_ptr,  # pointer to the first input vector
               y_ptr,  # pointer to the second input vector
               out_ptr,  # pointer to the output vector
               n_elements,  # number of elements in each vector
               BLOCK_SIZE: tl.constexpr,  # elements handled by one program (a power of two)
               ):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    grid = (n_elements // 1024,)  # how many programs to launch: a tuple, or a lambda over meta
    add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=1024)
    return out
