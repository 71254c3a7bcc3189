# drill: autotune
# expect: autotune
# also-ok: grid
# note: the project names a grid that ignores meta `grid` (the hole to fix) when tiles go unwritten (tests/test_2d_drills.py::test_autotune_rules)
# blind round 4 (nervous)
# bug: line 27: grid = cdiv(n, 1024) ignores meta['BLOCK_SIZE']; under the BLOCK_SIZE=256 config 3/4 of the vector is never written
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_SIZE": 256}, num_warps=2),
        triton.Config({"BLOCK_SIZE": 1024}, num_warps=4),
    ],
    key=["n_elements"],
)
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    grid = lambda meta: (triton.cdiv(n_elements, 1024),)
    add_kernel[grid](x, y, out, n_elements)
    return out
