# drill: heuristics
# expect: pass
"""A while loop over tiles, 8 programs of 512 elements with 8 warps (64 elements per warp), and a config built
key by key."""
import torch
import triton
import triton.language as tl


def pick_config(numel):
    cfg = {}
    cfg["XBLOCK"] = 512
    cfg["num_warps"] = 8
    cfg["grid"] = max(1, min(8, -(-numel // 512)))
    return cfg


@triton.jit
def kernel(x_ptr, out_ptr, n, XBLOCK: tl.constexpr):
    tile = tl.program_id(0)
    tiles = tl.cdiv(n, XBLOCK)
    while tile < tiles:
        i = tile * XBLOCK + tl.arange(0, XBLOCK)
        ok = i < n
        a = tl.load(x_ptr + i, mask=ok)
        tl.store(out_ptr + i, tl.where(a > 0, a * 2, 0.0), mask=ok)
        tile += tl.num_programs(0)


def mul_relu(x):
    out = torch.empty_like(x)
    cfg = pick_config(x.numel())
    kernel[(cfg["grid"],)](x, out, x.numel(), XBLOCK=cfg["XBLOCK"], num_warps=cfg["num_warps"])
    return out
