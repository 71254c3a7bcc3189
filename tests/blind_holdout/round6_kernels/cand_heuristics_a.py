# drill: heuristics
"""A new accelerator — the guide's chapter 8 device "GXU": launch heuristics within its limits, and a looped kernel.

The GXU runs at most MAX_PROGRAMS = 32 programs per launch and MAX_WARPS = 16 warps per program; XBLOCK must be a
power of two in [MIN_XBLOCK, MAX_XBLOCK]. A launch beyond that is refused. Write
- pick_config(numel): XBLOCK, num_warps and the grid for a tensor of `numel` elements. It is a pure function: the
  grader calls it for sizes from 1 to 10^9 (never launching at 10^9), so the limits must hold at every size;
- the loop in the kernel: with at most 32 programs, each program handles several tiles, every tile exactly once.
mul_relu(x) = relu(2 * x) launches exactly what pick_config picked. Stuck? `drill hint heuristics`.
"""
import torch
import triton
import triton.language as tl

MAX_PROGRAMS = 32               # the GXU runs at most this many programs per launch
MAX_WARPS = 16                  # ... and at most this many warps per program
MIN_XBLOCK, MAX_XBLOCK = 128, 1024  # XBLOCK: a power of two in this range


def HOLE(what: str):
    """A hole for you to fill. `drill grade` reports every HOLE(...) still in this file, with its line."""
    raise NotImplementedError(f"fill the hole: {what}")


def pick_config(numel: int) -> dict:
    """XBLOCK, num_warps and the grid for `numel` elements on the GXU."""
    xblock = min(MAX_XBLOCK, max(MIN_XBLOCK, triton.next_power_of_2(triton.cdiv(numel, MAX_PROGRAMS))))
    num_warps = xblock // 32
    grid = max(1, min(MAX_PROGRAMS, triton.cdiv(numel, xblock)))
    return {"XBLOCK": xblock, "num_warps": num_warps, "grid": grid}


@triton.jit
def mul_relu_kernel(x_ptr,  # input
                    out_ptr,  # output
                    n_elements,  # elements in x
                    XBLOCK: tl.constexpr,  # elements per tile
                    ):
    pid = tl.program_id(0)
    num_tiles = tl.cdiv(n_elements, XBLOCK)
    for tile in range(pid, num_tiles, tl.num_programs(0)):
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
