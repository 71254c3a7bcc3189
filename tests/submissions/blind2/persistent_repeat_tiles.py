# drill: persistent
# expect: persistent
# style: chunked schedule with the chunk start forgotten: tile = pid + i (instead of pid * tiles_per_prog + i)
# why: neighbouring programs' chunks overlap, so at n=100000 (98 tiles, 16 programs x 7 iterations) tiles 0..21 are stored several times and tiles 22..97 are never reached.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, tiles_per_prog, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    for i in range(0, tiles_per_prog):
        tile = pid + i
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def add(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    cap = 8 * torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 16
    num_tiles = triton.cdiv(n, 1024)
    P = max(1, min(cap, num_tiles))
    add_kernel[(P,)](x, y, out, n, triton.cdiv(num_tiles, P), BLOCK=1024)
    return out
