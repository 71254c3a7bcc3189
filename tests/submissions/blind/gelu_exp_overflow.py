# drill: gelu
# expect: wrong-values
import torch
import triton
import triton.language as tl

@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    z = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    e = tl.exp(2.0 * z)
    t = (e - 1.0) / (e + 1.0)
    y = 0.5 * x * (1.0 + t)
    tl.store(out_ptr + offs, y, mask=m)


def gelu(x):
    out = torch.empty_like(x)
    n = x.numel()
    gelu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK_SIZE=1024, num_warps=4)
    return out
