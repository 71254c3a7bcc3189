# drill: fuse
"""Reference solution for the fuse drill — the guide's 04c: relu(x + y) in one kernel.

Eager PyTorch runs two kernels: `t = x + y` writes t to HBM, then `torch.relu(t)` reads it back. Here the sum
stays in registers and only the result is stored: 3·n·4 bytes move instead of 5·n·4, so on a memory-bound GPU the
fused kernel is about 5/3 times faster, and the relu costs nothing.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def add_relu_kernel(x_ptr,  # pointer to the first input vector
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
    s = x + y  # the intermediate: a register value, never stored
    tl.store(out_ptr + offsets, tl.maximum(s, 0.0), mask=mask)


def add_relu(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    add_relu_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=1024)
    return out
