# drill: persistent
# expect: persistent
# style: loop count computed as num_tiles // P iterations, tile = pid + i * P
# why: floor division drops the last num_tiles % P tiles (e.g. 98 tiles, 16 programs: tiles 96 and 97 are never processed), so the tail of the vector stays unwritten.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    P = tl.num_programs(0)
    num_tiles = tl.cdiv(n, BLOCK)
    for i in range(0, num_tiles // P):
        tile = pid + i * P
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def add(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    cap = 8 * torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 16
    P = max(1, min(cap, triton.cdiv(n, 1024)))
    add_kernel[(P,)](x, y, out, n, BLOCK=1024)
    return out
