# drill: mask
# expect: mask
# blind round 4 (styles, Triton-Puzzles vector add (B0, N0 naming))
# bug: mask = off_x <= N0 (off by one): lane N0 loads and stores one element past the end whenever n is not a multiple of the block
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, z_ptr, N0, B0: tl.constexpr):
    pid = tl.program_id(0)
    off_x = pid * B0 + tl.arange(0, B0)
    mask = off_x <= N0
    x = tl.load(x_ptr + off_x, mask=mask)
    y = tl.load(y_ptr + off_x, mask=mask)
    tl.store(z_ptr + off_x, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    z = torch.empty_like(x)
    N0 = z.numel()
    grid = lambda meta: (triton.cdiv(N0, meta["B0"]),)
    add_kernel[grid](x, y, z, N0, B0=1024)
    return z
