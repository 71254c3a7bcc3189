# drill: persistent
# expect: pass
# style: dynamic work queue (stream-K / "atomic ticket" scheduling): each program grabs its next tile with a scalar tl.atomic_add on a global counter
# why: every ticket value 0, 1, 2, ... is handed out exactly once across all programs, so each tile is processed once; the grid is capped and the counter is a fresh torch.zeros per call. The compiled behaviour was checked on an H200 (Triton 3.6).
import torch
import triton
import triton.language as tl


@triton.jit
def add_work_queue_kernel(x_ptr, y_ptr, out_ptr, counter_ptr, n, BLOCK: tl.constexpr):
    num_tiles = tl.cdiv(n, BLOCK)
    tile = tl.atomic_add(counter_ptr, 1)
    while tile < num_tiles:
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)
        tile = tl.atomic_add(counter_ptr, 1)


def add(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    counter = torch.zeros(1, dtype=torch.int32, device=x.device)
    cap = 8 * torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 16
    P = max(1, min(cap, triton.cdiv(n, 1024)))
    add_work_queue_kernel[(P,)](x, y, out, counter, n, BLOCK=1024)
    return out
