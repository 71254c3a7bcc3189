# drill: gelu
# expect: pass
# style: guide §2.9 formula with tanh(z) = 2 * sigmoid(2z) - 1 (interpreter-safe, no libdevice)
# why: one kernel, x read once and the result written once; sigmoid-based tanh saturates cleanly for large |z|.
import torch
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    tanh_inner = 2 * tl.sigmoid(2 * inner) - 1
    out = 0.5 * x * (1 + tanh_inner)
    tl.store(out_ptr + offsets, out, mask=mask)


def gelu(x):
    out = torch.empty_like(x)
    n = x.numel()
    gelu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK_SIZE=1024)
    return out
