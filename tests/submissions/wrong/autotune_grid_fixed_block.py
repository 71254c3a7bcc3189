# drill: autotune
# expect: grid
"""Autotuned, but the grid assumes BLOCK_SIZE 1024: the 256 config leaves most elements unwritten."""
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_SIZE": 256}, num_warps=2),
        triton.Config({"BLOCK_SIZE": 1024}, num_warps=4),
        triton.Config({"BLOCK_SIZE": 4096}, num_warps=8),
    ],
    key=["n_elements"],  # re-tune when n changes
)
@triton.jit
def add_kernel(x_ptr,  # first input
               y_ptr,  # second input
               out_ptr,  # output
               n_elements,  # elements in each vector (the autotune key)
               BLOCK_SIZE: tl.constexpr,  # chosen by the autotuner
               ):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    grid = (triton.cdiv(n_elements, 1024),)  # follows the chosen config
    add_kernel[grid](x, y, out, n_elements)
    return out
