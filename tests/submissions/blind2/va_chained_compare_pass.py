# drill: vector-add
# expect: pass
# also-ok: error
# style: Pythonic chained comparison for the mask, `0 <= offs < n`
# why: Triton 3.9 (compiler and interpreter) evaluates the chain lane-wise as (0 <= offs) & (offs < n), the usual tail mask; Triton 3.6 (the H200 image) rejects it at compile time ("simultaneous multiple comparison is not supported"), checked on the H200.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    in_range = 0 <= offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=in_range, other=0.0) + tl.load(y_ptr + offs, mask=in_range, other=0.0),
             mask=in_range)


def add(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out
