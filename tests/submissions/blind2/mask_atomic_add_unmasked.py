# drill: mask
# expect: mask
# style: candidate who masks the loads (other=0) and thinks "adding 0 is harmless" for the atomic store
# why: tl.atomic_add has no mask, so the tail lanes of the last tile add 0.0 to addresses past the end of out (an out-of-bounds read-modify-write).
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = tl.load(y_ptr + offsets, mask=mask, other=0.0)
    # masked lanes hold 0 + 0 = 0, so adding them is a no-op... right?
    tl.atomic_add(out_ptr + offsets, x + y)


def add(x, y):
    out = torch.zeros_like(x)
    n = out.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
    add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)
    return out
