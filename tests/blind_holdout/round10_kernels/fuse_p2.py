# drill: fuse
import torch
import triton
import triton.language as tl


@triton.jit
def add_relu_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    result = tl.maximum(x + y, 0.0)
    tl.store(out_ptr + offsets, result, mask=mask)


def add_relu(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    # fewer bytes: no new allocation, the result goes straight into x's buffer (each lane reads x before writing it)
    out = x
    n_elements = out.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    add_relu_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=1024)
    return out
