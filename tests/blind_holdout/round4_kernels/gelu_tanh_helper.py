# drill: gelu
import torch
import triton
import triton.language as tl


@triton.jit
def _tanh(z):
    # tanh via sigmoid, no overflow: sigmoid saturates cleanly
    return 2.0 * tl.sigmoid(2.0 * z) - 1.0


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    k0 = 0.7978845608028654
    inner = k0 * (x + 0.044715 * x * x * x)
    result = 0.5 * x * (1.0 + _tanh(inner))
    tl.store(out_ptr + offsets, result, mask=mask)


def gelu(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    gelu_kernel[grid](x, out, n_elements, BLOCK_SIZE=512)
    return out
