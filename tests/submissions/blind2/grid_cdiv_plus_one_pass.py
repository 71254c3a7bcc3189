# drill: grid
# expect: pass
# style: nervous candidate who does not remember triton.cdiv and writes n // BLOCK + 1
# why: n // BLOCK + 1 is never too small; when n is a multiple of BLOCK it adds one program whose lanes are all masked off, which is harmless.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, x + y, mask=mask)


def add(x, y):
    output = torch.empty_like(x)
    n_elements = output.numel()
    BLOCK_SIZE = 1024
    grid = (n_elements // BLOCK_SIZE + 1,)   # round up (one spare program is fine, the mask covers it)
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=BLOCK_SIZE)
    return output
