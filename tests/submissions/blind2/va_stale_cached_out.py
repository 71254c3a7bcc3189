# drill: vector-add
# expect: stale-output
# style: "avoid re-allocating": module-level output cache keyed by (numel, device)
# why: the second call with the same size returns the same tensor object, so the first result the caller still holds is overwritten.
import torch
import triton
import triton.language as tl

_OUT_CACHE = {}


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(output_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


def add(x, y):
    key = (x.numel(), x.device)
    if key not in _OUT_CACHE:
        _OUT_CACHE[key] = torch.empty_like(x)
    output = _OUT_CACHE[key]
    n_elements = x.numel()
    add_kernel[(triton.cdiv(n_elements, 1024),)](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output
