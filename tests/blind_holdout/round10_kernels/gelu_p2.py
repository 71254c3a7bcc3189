# drill: gelu
import torch
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    inside = offsets < n_elements
    # no masked load: lanes past the end re-read element 0 (always there), their results are never stored
    safe = tl.where(inside, offsets, 0)
    x = tl.load(x_ptr + safe)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    t = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
    result = 0.5 * x * (1.0 + t)
    result = tl.where(inside, result, 0.0)
    tl.store(out_ptr + offsets, result, mask=inside)


def gelu(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    gelu_kernel[grid](x, out, n_elements, BLOCK_SIZE=1024)
    return out
