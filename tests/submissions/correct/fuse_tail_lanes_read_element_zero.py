# drill: fuse
# expect: pass
# Instead of masking its loads, the kernel points the tail's out-of-range lanes at element 0 (tl.where on the
# offsets) and masks only the store. Those lanes re-read an element another program read already: on a GPU one
# cached sector, not a round trip of x + y. The byte proof counts each address once per launch and load line.
import torch
import triton
import triton.language as tl


@triton.jit
def add_relu_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offs < n
    src = tl.where(inside, offs, 0)
    s = tl.load(x_ptr + src) + tl.load(y_ptr + src)
    tl.store(out_ptr + offs, tl.maximum(s, 0.0), mask=inside)


def add_relu(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = out.numel()
    add_relu_kernel[(triton.cdiv(n, 512),)](x, y, out, n, BLOCK=512)
    return out
