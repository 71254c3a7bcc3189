# drill: vector-add
# expect: pass
# A tiny BLOCK (32 lanes, one warp's worth): 3125 programs at n = 100000. Slow in the interpreter, but correct.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 32),)](x, y, out, n, BLOCK=32, num_warps=1)
    return out
