# drill: vector-add
# expect: shape
# also-ok: error
# (on a GPU Triton itself refuses the CPU tensor before anything runs: "Pointer argument cannot be accessed from Triton")
# torch.empty(n) with no device=: fine on a laptop CPU, but on a GPU machine the output lands on the CPU.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(output_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
             mask=mask)


def add(x, y):
    n = x.numel()
    output = torch.empty(n, dtype=x.dtype)
    add_kernel[(triton.cdiv(n, 1024),)](x, y, output, n, BLOCK_SIZE=1024)
    return output
