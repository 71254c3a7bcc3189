# drill: vector-add
# expect: error
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr)
    pid = tl.program_id(0)


def add(x, y):
    return x
