# drill: offsets
# expect: pass
# style: large-tensor-safe offsets (xformers / Liger habit): pid cast to int64 before multiplying by the block size
# why: offsets = pid.to(tl.int64) * BLOCK_SIZE + arange is the usual tile start, just computed in 64-bit; mask and grid standard.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0).to(tl.int64)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = tl.load(y_ptr + offsets, mask=mask, other=0.0)
    tl.store(output_ptr + offsets, x + y, mask=mask)


def add(x, y):
    output = torch.empty_like(x)
    n_elements = output.numel()
    add_kernel[(triton.cdiv(n_elements, 2048),)](x, y, output, n_elements, BLOCK_SIZE=2048, num_warps=8)
    return output
