# drill: vector-add
# expect: grid
"""@triton.autotune, but the grid hard-codes 1024 instead of reading meta['BLOCK_SIZE']."""
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({"BLOCK_SIZE": 256}, num_warps=2), triton.Config({"BLOCK_SIZE": 1024}, num_warps=4)],
    key=["n_elements"],
)
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
             mask=mask)


def add(x, y):
    out = torch.empty_like(x)
    n_elements = out.numel()
    add_kernel[(triton.cdiv(n_elements, 1024),)](x, y, out, n_elements)
    return out
