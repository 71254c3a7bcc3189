# drill: vector-add
"""Vector add, all three holes — the guide's 04b.

Fill every HOLE(...) below, then run `drill grade vector_add.py`. Stuck? `drill hint vector-add`.
Graded at n = 1, 1023, 1024, 1025, 12289 and 100000: the tail tile is where mistakes show.
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
    offsets = pid.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE).to(tl.int64)  # the BLOCK_SIZE element indices of this program's tile
    mask = offsets < n_elements  # which of those lanes are inside the vector
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    grid = ((n_elements + 1024 - 1) // 1024, 1, 1)  # how many programs to launch: a tuple, or a lambda over meta
    add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=1024)
    return out
