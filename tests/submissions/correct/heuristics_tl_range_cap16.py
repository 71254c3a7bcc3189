# drill: heuristics
# expect: pass
"""A stricter cap than the device's: at most 16 programs, XBLOCK 256 with 2 warps, the loop written with tl.range."""
import torch
import triton
import triton.language as tl

PROGRAMS = 16
BLOCK = 256


def pick_config(numel: int) -> dict:
    tiles = triton.cdiv(numel, BLOCK)
    return {"XBLOCK": BLOCK, "num_warps": 2, "grid": max(1, min(PROGRAMS, tiles))}


@triton.jit
def mul_relu_kernel(src, dst, n_elements, XBLOCK: tl.constexpr):
    num_tiles = tl.cdiv(n_elements, XBLOCK)
    for t in tl.range(tl.program_id(0), num_tiles, tl.num_programs(0)):
        offs = t * XBLOCK + tl.arange(0, XBLOCK)
        keep = offs < n_elements
        val = tl.load(src + offs, mask=keep)
        tl.store(dst + offs, tl.maximum(2.0 * val, 0.0), mask=keep)


def mul_relu(x):
    out = torch.empty_like(x)
    cfg = pick_config(out.numel())
    mul_relu_kernel[(cfg["grid"],)](x, out, out.numel(), XBLOCK=cfg["XBLOCK"], num_warps=cfg["num_warps"])
    return out
