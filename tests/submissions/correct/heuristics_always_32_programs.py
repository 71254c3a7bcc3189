# drill: heuristics
# expect: pass
"""Always the device's 32 programs of 128 elements, even for a tensor of 1 element: programs with no tile skip the
loop. Wasteful for tiny tensors, but inside every limit."""
import torch
import triton
import triton.language as tl


def pick_config(numel):
    return {"XBLOCK": 128, "num_warps": 1, "grid": 32}


@triton.jit
def mul_relu_kernel(x_ptr, out_ptr, n_elements, XBLOCK: tl.constexpr):
    pid = tl.program_id(0)
    for tile in range(pid, tl.cdiv(n_elements, XBLOCK), 32):
        offsets = tile * XBLOCK + tl.arange(0, XBLOCK)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, tl.maximum(x * 2, 0.0), mask=mask)


def mul_relu(x):
    out = torch.empty_like(x)
    c = pick_config(x.numel())
    mul_relu_kernel[(c["grid"],)](x, out, x.numel(), XBLOCK=c["XBLOCK"], num_warps=c["num_warps"])
    return out
