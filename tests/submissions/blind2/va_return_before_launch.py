# drill: vector-add
# expect: no-kernel
# style: candidate refactors the wrapper and leaves `return output` above the launch
# why: the function returns the freshly allocated (uninitialised) buffer before the kernel is ever launched: no Triton launch happens.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(output_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


def add(x, y):
    output = torch.empty_like(x)
    n_elements = output.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    return output
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)  # noqa: unreachable
