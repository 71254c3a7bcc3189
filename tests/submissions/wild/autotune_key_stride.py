# drill: autotune
# expect: autotune
# The autotune key is the stride, which is 1 for every contiguous input: the tuner never re-tunes for a new n.
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_SIZE": 256}, num_warps=2),
        triton.Config({"BLOCK_SIZE": 1024}, num_warps=4),
    ],
    key=["stride"],
)
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, stride, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs * stride, mask=mask)
    y = tl.load(y_ptr + offs * stride, mask=mask)
    tl.store(out_ptr + offs * stride, x + y, mask=mask)


def add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
    add_kernel[grid](x, y, out, n, x.stride(0))
    return out
