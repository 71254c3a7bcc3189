# drill: heuristics
import torch
import triton
import triton.language as tl

MAX_PROGRAMS = 32               # the GXU runs at most this many programs per launch
MAX_WARPS = 16                  # ... and at most this many warps per program
MIN_XBLOCK, MAX_XBLOCK = 128, 1024  # XBLOCK: a power of two in this range


def pick_config(numel: int) -> dict:
    """XBLOCK, num_warps and the grid for `numel` elements on the GXU."""
    # smallest power of two that lets MAX_PROGRAMS programs cover numel, clamped to the range
    per_program = -(-numel // MAX_PROGRAMS)
    xblock = MIN_XBLOCK
    while xblock < per_program and xblock < MAX_XBLOCK:
        xblock *= 2
    # 128 elements per warp
    num_warps = xblock // 128
    if num_warps > MAX_WARPS:
        num_warps = MAX_WARPS
    tiles = -(-numel // xblock)
    grid = tiles if tiles < MAX_PROGRAMS else MAX_PROGRAMS
    if grid < 1:
        grid = 1
    return {"XBLOCK": xblock, "num_warps": num_warps, "grid": grid}


@triton.jit
def mul_relu_kernel(x_ptr, out_ptr, n_elements, XBLOCK: tl.constexpr):
    pid = tl.program_id(0)
    num_tiles = tl.cdiv(n_elements, XBLOCK)
    tile = pid
    while tile < num_tiles:
        offsets = tile * XBLOCK + tl.arange(0, XBLOCK)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, tl.maximum(x * 2, 0.0), mask=mask)
        tile += tl.num_programs(0)


def mul_relu(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    config = pick_config(n_elements)
    mul_relu_kernel[(config["grid"],)](x, out, n_elements, XBLOCK=config["XBLOCK"], num_warps=config["num_warps"])
    return out
