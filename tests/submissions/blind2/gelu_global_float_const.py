# drill: gelu
# expect: error
# style: constants hoisted to module level (SQRT_2_OVER_PI = math.sqrt(2 / math.pi)) and read inside the kernel
# why: a plain float global is not a constexpr; the Triton compiler raises NameError "Cannot access global variable SQRT_2_OVER_PI from within @jit'ed function", although the interpreter reads it fine and the math is right. The compiled behaviour was checked on an H200 (Triton 3.6).
import math

import torch
import triton
import triton.language as tl

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
GELU_COEF = 0.044715


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    z = SQRT_2_OVER_PI * (x + GELU_COEF * x * x * x)
    tl.store(out_ptr + offs, 0.5 * x * (1.0 + (2.0 * tl.sigmoid(2.0 * z) - 1.0)), mask=m)


def gelu(x):
    out = torch.empty_like(x)
    n = x.numel()
    gelu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
