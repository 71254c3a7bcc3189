# drill: vector-add
# expect: pass
"""A grid-stride loop: a fixed number of programs, each walking the tiles pid, pid + P, pid + 2P, ..."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    num_programs = tl.num_programs(0)
    for start in range(pid * BLOCK, n, num_programs * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, x + y, mask=mask)


def add(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    programs = min(triton.cdiv(n, 512), 16)
    add_kernel[(programs,)](x, y, out, n, BLOCK=512)
    return out
