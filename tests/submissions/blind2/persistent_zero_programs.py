# drill: persistent
# expect: grid
# also-ok: persistent
# style: capped grid computed with floor division, min(cap, n // BLOCK), and the kernel loops over cdiv tiles
# why: for n < BLOCK (n = 1) the grid is 0 programs, so nothing is written; at the other sizes the loop still covers every tile.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    num_tiles = tl.cdiv(n, BLOCK)
    for tile in range(tl.program_id(0), num_tiles, tl.num_programs(0)):
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def add(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    cap = 8 * torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 16
    add_kernel[(min(cap, n // 1024),)](x, y, out, n, BLOCK=1024)
    return out
