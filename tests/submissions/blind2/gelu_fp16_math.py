# drill: gelu
# expect: wrong-values
# style: "tensor cores like fp16": x cast to float16 for the polynomial, result cast back
# why: x^3 overflows float16 (max 65504) for |x| > ~40 and fp16 rounding (~5e-4 relative) breaks float32 tolerance everywhere; output dtype is still float32, the values are wrong.
import torch
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m).to(tl.float16)
    z = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    t = 2.0 * tl.sigmoid((2.0 * z).to(tl.float32)) - 1.0
    y = 0.5 * x * (1.0 + t.to(tl.float16))
    tl.store(out_ptr + offs, y.to(tl.float32), mask=m)


def gelu(x):
    out = torch.empty_like(x)
    n = x.numel()
    gelu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
