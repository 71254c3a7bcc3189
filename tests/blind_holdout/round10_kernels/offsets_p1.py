# drill: offsets
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
    pid = tl.program_id(axis=0)
    offsets = tl.arange(0, BLOCK_SIZE)  # the BLOCK_SIZE element indices of this program's tile
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=1024)
    return out
