# drill: mask
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    in_range = offsets < n_elements
    # clamp the tail lanes onto element 0 so every read is in bounds, only store the real ones
    safe = tl.where(in_range, offsets, 0)
    x = tl.load(x_ptr + safe)
    y = tl.load(y_ptr + safe)
    tl.store(out_ptr + offsets, x + y, mask=in_range)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=1024)
    return out
