# drill: autotune
# expect: autotune
# also-ok: grid
# note (lead): the project names a grid that ignores meta `grid` (the hole to fix) when tiles go unwritten, `autotune` when the values still pass
# style: autotune added but the old fixed grid kept: grid = (triton.cdiv(n, 1024),)
# why: the grid ignores the BLOCK_SIZE the tuner picks: with the 512 config half of the tiles get no program (tail unwritten), with 2048 most programs are empty.
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_SIZE": 512}, num_warps=2),
        triton.Config({"BLOCK_SIZE": 2048}, num_warps=8),
    ],
    key=["n_elements"],
)
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


def add(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n)
    return out
