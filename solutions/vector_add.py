# drill: vector-add
"""Reference solution for the vector-add family (offsets, mask, grid, vector-add) — the guide's 04b.

One program handles one BLOCK_SIZE tile of the vector; the last tile is partial, so a mask keeps its lanes
inside the vector on every load and store. The launch grid has cdiv(n, BLOCK_SIZE) programs.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr,  # pointer to the first input vector
               y_ptr,  # pointer to the second input vector
               out_ptr,  # pointer to the output vector
               n_elements,  # number of elements in each vector
               BLOCK_SIZE: tl.constexpr,  # elements handled by one program (a power of two)
               ):
    pid = tl.program_id(axis=0)  # which tile this program owns: a tile id, not a thread id
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)  # the tile's element indices
    mask = offsets < n_elements  # lanes past the end of the vector do nothing
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)  # one program per tile, tail included
    add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=1024)
    return out
