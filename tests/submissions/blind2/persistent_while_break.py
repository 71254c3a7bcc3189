# drill: persistent
# expect: error
# style: CUDA-style `while (true) { if (tile >= n_tiles) break; ... tile += gridDim.x; }`
# why: Triton's compiler has no `break` (UnsupportedLanguageConstruct: unsupported AST node type: Break), so the launch fails on a GPU; the interpreter runs Python's break and the values are right. The compiled behaviour was checked on an H200 (Triton 3.6).
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    tile = tl.program_id(0)
    num_tiles = tl.cdiv(n, BLOCK)
    while True:
        if tile >= num_tiles:
            break
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)
        tile += tl.num_programs(0)


def add(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    cap = 8 * torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 16
    add_kernel[(max(1, min(cap, triton.cdiv(n, 1024))),)](x, y, out, n, BLOCK=1024)
    return out
