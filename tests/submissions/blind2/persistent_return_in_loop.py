# drill: persistent
# expect: error
# style: fixed-trip loop with an early exit: `for i in range(MAX_ITERS): ... if tile >= num_tiles: return`
# why: Triton rejects `return` inside a for/while ("Cannot have `return` statements inside `while` or `for` statements in triton"), so it fails to compile on a GPU; the interpreter runs it correctly. The compiled behaviour was checked on an H200 (Triton 3.6).
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, max_iters, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    P = tl.num_programs(0)
    for i in range(0, max_iters):
        tile = pid + i * P
        if tile * BLOCK >= n:
            return
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def add(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    cap = 8 * torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 16
    tiles = triton.cdiv(n, 1024)
    P = max(1, min(cap, tiles))
    add_kernel[(P,)](x, y, out, n, triton.cdiv(tiles, P), BLOCK=1024)
    return out
