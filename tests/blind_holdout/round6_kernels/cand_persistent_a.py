# drill: persistent
"""Vector add with a capped ("persistent") grid — the guide's §5 / §8.4.

Launch at most `program_cap(device)` programs; each loops over tiles until every tile is done, exactly once.
The grader checks the launched grid against the cap at sizes with many more tiles than that, and that no
element is stored twice. (On the H200 this is slower than one program per tile for a plain add: see the docs.)
Stuck? `drill hint persistent`.
"""
import torch
import triton
import triton.language as tl

CPU_PROGRAMS = 16  # the cap under the interpreter (the grader checks it)
PROGRAMS_PER_SM = 8  # on CUDA: the cap is this many programs per SM


def HOLE(what: str):
    """A hole for you to fill. `drill grade` reports every HOLE(...) still in this file, with its line."""
    raise NotImplementedError(f"fill the hole: {what}")


def program_cap(device: torch.device) -> int:
    if device.type == "cuda":
        return PROGRAMS_PER_SM * torch.cuda.get_device_properties(device).multi_processor_count
    return CPU_PROGRAMS


@triton.jit
def add_kernel(x_ptr,  # first input
               y_ptr,  # second input
               out_ptr,  # output
               n_elements,  # elements in each vector
               BLOCK_SIZE: tl.constexpr,  # elements per tile
               ):
    pid = tl.program_id(0)
    num_tiles = tl.cdiv(n_elements, BLOCK_SIZE)
    for tile in range(pid * (num_tiles // tl.num_programs(0)), (pid + 1) * (num_tiles // tl.num_programs(0))):
        offsets = tile * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    cap = program_cap(x.device)
    grid = lambda meta: (min(cap, triton.cdiv(n_elements, meta["BLOCK_SIZE"])),)
    add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=1024)
    return out
