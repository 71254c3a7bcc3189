# drill: gelu
# expect: wrong-values
# style: tanh written from its definition, (e^{2z} - 1) / (e^{2z} + 1), as in many blog posts
# why: for large positive z, exp(2z) overflows to inf and inf/inf = NaN, so gelu of large inputs (|x| ~ 1e3 in the data) is NaN instead of x.
import torch
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    z = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    e = tl.exp(2.0 * z)
    t = (e - 1.0) / (e + 1.0)
    tl.store(out_ptr + offs, 0.5 * x * (1.0 + t), mask=m)


def gelu(x):
    out = torch.empty_like(x)
    n = x.numel()
    gelu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
