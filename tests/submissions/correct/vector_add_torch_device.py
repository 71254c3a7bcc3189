# drill: vector-add
# expect: pass
# A correct add whose wrapper names its device with torch.device(...) (as code that picks "cuda" or "cpu", or asks
# torch.cuda.get_device_properties("cuda") for the SM count, does): torch.device goes through torch's function
# mode, and was once taken for a torch op computing the answer (torch-fallback) on the H200.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    device = torch.device("cuda" if x.is_cuda else "cpu")
    out = torch.empty(x.shape, dtype=x.dtype, device=device)
    n_elements = out.numel()
    add_kernel[(triton.cdiv(n_elements, 1024),)](x, y, out, n_elements, BLOCK_SIZE=1024)
    return out
