# drill: vector-add
# expect: wrong-values
# style: scatter-max idiom but the buffer is initialised with torch.zeros_like (the habit from atomic_add)
# why: max(0, x + y) clamps every negative sum to 0, so all negative results are wrong (lanes and grid are fine).
import torch
import triton
import triton.language as tl


@triton.jit
def add_via_max_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m)
    tl.atomic_max(out_ptr + offs, v, mask=m)


def add(x, y):
    out = torch.zeros_like(x)
    n = out.numel()
    add_via_max_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out
