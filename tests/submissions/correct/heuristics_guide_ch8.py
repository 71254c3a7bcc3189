# drill: heuristics
# expect: pass
"""The guide's chapter 8 as written there, with its num_warps rule capped by the device: XBLOCK = next power of two
of cdiv(n, 32) in [128, 1024], num_warps = one warp per 32 elements capped at 16, grid = min(tiles, 32), and the
kernel of §8.4: each program takes a contiguous chunk of tiles_per_pid tiles (tiles past the end are masked off)."""
import math

import torch
import triton
import triton.language as tl

MAX_GRID_SIZE = 32
MAX_NUM_WARPS = 16


def select_xblock(numel):
    min_xblock = (numel + MAX_GRID_SIZE - 1) // MAX_GRID_SIZE
    xblock = 2 ** math.ceil(math.log2(max(min_xblock, 128)))
    return max(128, min(xblock, 1024))


def select_num_warps(xblock):
    num_warps = 2 ** math.ceil(math.log2((xblock + 31) // 32))
    return min(num_warps, MAX_NUM_WARPS)


def pick_config(numel):
    xblock = select_xblock(numel)
    total_tiles = (numel + xblock - 1) // xblock
    return {"XBLOCK": xblock, "num_warps": select_num_warps(xblock), "grid": min(total_tiles, MAX_GRID_SIZE)}


@triton.jit
def triton_poi_fused_mul_relu_0(in_ptr0, out_ptr0, numel, XBLOCK: tl.constexpr):
    pid = tl.program_id(0)
    n_tiles = tl.cdiv(numel, XBLOCK)
    tiles_per_pid = tl.cdiv(n_tiles, tl.num_programs(0))
    for tile_idx in range(tiles_per_pid):
        offset = (pid * tiles_per_pid + tile_idx) * XBLOCK
        index = offset + tl.arange(0, XBLOCK)
        mask = index < numel
        x = tl.load(in_ptr0 + index, mask)
        y = x * 2.0
        y = tl.maximum(y, 0.0)
        tl.store(out_ptr0 + index, y, mask)


def mul_relu(x):
    out = torch.empty_like(x)
    cfg = pick_config(x.numel())
    triton_poi_fused_mul_relu_0[(cfg["grid"],)](x, out, x.numel(), XBLOCK=cfg["XBLOCK"], num_warps=cfg["num_warps"])
    return out
