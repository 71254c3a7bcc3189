# drill: fuse
# expect: pass
"""FlagGems style: `tle.program_id` and a relu from a helper module beside this file (_helpers/tle.py), both
@triton.jit. Triton's front end compiles helpers wherever they are defined; the compile check reported
"InterpreterError('AttributeError(... 'grid_idx')')" as the compiler rejecting this kernel (issue 17, item 1)."""
import torch
import triton
import triton.language as tl

from _helpers import tle


@triton.jit
def add_relu_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tle.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    s = tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, tle.relu(s), mask=m)


def add_relu(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    add_relu_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out
