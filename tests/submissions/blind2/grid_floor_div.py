# drill: grid
# expect: grid
# style: nervous candidate, grid = n // BLOCK (rounds down)
# why: the partial last tile gets no program: at n=1023/1025/12289/100000 the tail is never written, and at n=1 the grid is 0 programs.
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
    grid = lambda meta: (n_elements // meta["BLOCK_SIZE"],)
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output
