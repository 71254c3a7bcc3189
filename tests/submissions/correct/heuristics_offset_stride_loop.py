# drill: heuristics
# expect: pass
"""Written without reading the reference: a fixed 1024-element block with 4 warps, at most 32 programs, and a
grid-stride loop over element offsets instead of tile numbers."""
import torch
import triton
import triton.language as tl


def pick_config(numel):
    block = 1024
    return dict(XBLOCK=block, num_warps=4, grid=min(32, triton.cdiv(numel, block)))


@triton.jit
def _kernel(x_ptr, y_ptr, n, XBLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    step = tl.num_programs(axis=0) * XBLOCK
    for off in range(pid * XBLOCK, n, step):
        idx = off + tl.arange(0, XBLOCK)
        m = idx < n
        v = tl.load(x_ptr + idx, mask=m, other=0.0)
        tl.store(y_ptr + idx, tl.where(v > 0, v + v, 0.0), mask=m)


def mul_relu(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    c = pick_config(x.numel())
    _kernel[(c["grid"],)](x, y, x.numel(), XBLOCK=c["XBLOCK"], num_warps=c["num_warps"])
    return y
