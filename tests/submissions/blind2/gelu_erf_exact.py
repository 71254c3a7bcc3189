# drill: gelu
# expect: wrong-values
# style: attorch / HF "exact" GELU, 0.5 * x * (1 + erf(x / sqrt(2))), when the drill asks for approximate="tanh"
# why: the erf GELU differs from the tanh approximation by up to ~5e-4 around |x| ~ 2, far outside float32 tolerance against F.gelu(approximate="tanh").
import torch
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    out = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    tl.store(out_ptr + offs, out, mask=m)


def gelu(x):
    out = torch.empty_like(x)
    n = x.numel()
    gelu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
