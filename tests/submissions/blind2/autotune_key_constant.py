# drill: autotune
# expect: autotune
# style: key on a dtype-size constant passed to the kernel (key=['ELEM_BYTES'], always 4 for float32)
# why: the key is a constant, so autotuning runs once and the first size's config is used for every problem size.
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_SIZE": 512}, num_warps=4),
        triton.Config({"BLOCK_SIZE": 4096}, num_warps=16),
    ],
    key=["ELEM_BYTES"],
)
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, ELEM_BYTES: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


def add(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)](x, y, out, n, ELEM_BYTES=x.element_size())
    return out
