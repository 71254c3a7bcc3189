# drill: persistent
"""Reference solution for `persistent` — vector add with a capped grid (the guide's §5 / §8.4).

At most `program_cap(device)` programs are launched; each loops over the tiles pid, pid + P, pid + 2P, ...
(P = tl.num_programs(0)), so every tile is handled exactly once and the last, partial tile is masked.
Measured on the H200: for a plain streaming add this is SLOWER than one program per tile at every size tried
(docs/drills-2d.md) — the pattern pays off when each program has setup worth reusing, not for an add.
"""
import torch
import triton
import triton.language as tl

CPU_PROGRAMS = 16  # the cap under the interpreter (the grader checks it)
PROGRAMS_PER_SM = 8  # on CUDA: the cap is this many programs per SM


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
    for tile in range(pid, num_tiles, tl.num_programs(0)):  # grid-stride loop over tiles
        offsets = tile * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    cap = program_cap(x.device)
    grid = lambda meta: (max(1, min(cap, triton.cdiv(n_elements, meta["BLOCK_SIZE"]))),)
    add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=1024)
    return out
