# drill: mask
# expect: error
# style: kernel signature without the tl.constexpr annotation on BLOCK_SIZE (mask itself is right)
# why: BLOCK_SIZE arrives as a runtime integer, and tl.arange(0, BLOCK_SIZE) raises "arange's arguments must be of type tl.constexpr" at compile time. The compiled behaviour was checked on an H200 (Triton 3.6).
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, x + y, mask=mask)


def add(x, y):
    output = torch.empty_like(x)
    n_elements = output.numel()
    add_kernel[(triton.cdiv(n_elements, 1024),)](x, y, output, n_elements, 1024)
    return output
