# drill: heuristics
# expect: persistent
"""Counts tiles with a floor division: the partial last tile is never visited."""
import torch
import triton
import triton.language as tl

MAX_PROGRAMS = 32               # the GXU runs at most this many programs per launch
MAX_WARPS = 16                  # ... and at most this many warps per program
MIN_XBLOCK, MAX_XBLOCK = 128, 1024  # XBLOCK: a power of two in this range
ELEMENTS_PER_WARP = 256


def pick_config(numel: int) -> dict:
    """XBLOCK, num_warps and the grid for `numel` elements on the GXU."""
    xblock = min(MAX_XBLOCK, max(MIN_XBLOCK, triton.next_power_of_2(triton.cdiv(numel, MAX_PROGRAMS))))
    num_warps = min(MAX_WARPS, max(1, xblock // ELEMENTS_PER_WARP))
    grid = max(1, min(MAX_PROGRAMS, triton.cdiv(numel, xblock)))
    return {"XBLOCK": xblock, "num_warps": num_warps, "grid": grid}


@triton.jit
def mul_relu_kernel(x_ptr,  # input
                    out_ptr,  # output
                    n_elements,  # elements in x
                    XBLOCK: tl.constexpr,  # elements per tile
                    ):
    pid = tl.program_id(0)
    num_tiles = n_elements // XBLOCK
    for tile in range(pid, num_tiles, tl.num_programs(0)):  # grid-stride loop over tiles
        offsets = tile * XBLOCK + tl.arange(0, XBLOCK)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, tl.maximum(x * 2, 0.0), mask=mask)


def mul_relu(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    config = pick_config(n_elements)
    mul_relu_kernel[(config["grid"],)](x, out, n_elements, XBLOCK=config["XBLOCK"], num_warps=config["num_warps"])
    return out
