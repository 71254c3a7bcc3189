# drill: vector-add
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    start = pid * BLOCK_SIZE
    idx = start + tl.arange(0, BLOCK_SIZE)
    inside = idx < n_elements
    a = tl.load(x_ptr + idx, mask=inside)
    b = tl.load(y_ptr + idx, mask=inside)
    tl.store(out_ptr + idx, a + b, mask=inside)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    assert x.shape == y.shape, "shapes differ"
    assert x.is_contiguous() and y.is_contiguous()
    out = torch.empty_like(x)
    n_elements = out.numel()
    BLOCK = 256
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=BLOCK)
    return out
