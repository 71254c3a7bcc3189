# drill: vector-add
# expect: error
"""A scratch buffer sized by a wrong product (n * n elements at n=100000 is 40 GB; at 10^13 it is 40 TB): an
allocation no device holds. On the H200 the 40 TB one became a `timeout` after a minute; on the CPU an
overcommitted buffer paged in by the sentinel fill. Now it fails at once, naming this line (issue 17, item 7)."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def add(x, y):
    n = x.numel()
    scratch = torch.empty(10**13, device=x.device, dtype=torch.float32)
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out
