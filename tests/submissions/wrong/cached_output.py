# drill: vector-add
# expect: stale-output
import torch
import triton
import triton.language as tl


_CACHE = {}


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def add(x, y):
    key = (x.shape, x.dtype)
    if key not in _CACHE:  # "optimisation": reuse the output buffer between calls
        _CACHE[key] = torch.empty_like(x)
    out = _CACHE[key]
    n = out.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out
