# drill: grid
# expect: grid
# style: copied a 2-D matmul launch, grid = (tiles, tiles), but the kernel only reads program_id(0)
# why: values are right, but every tile is computed and stored n_tiles times (98 x 98 = 9604 programs at n=100000 for 98 tiles).
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    offsets = pid_m * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


def add(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    grid = lambda META: (triton.cdiv(n, META["BLOCK_SIZE"]), triton.cdiv(n, META["BLOCK_SIZE"]))
    add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)
    return out
