# drill: autotune
# expect: pass
# style: autotuned kernel that accumulates with tl.atomic_add into a zeroed output, with reset_to_zero=['out_ptr'] (split-K matmul idiom)
# why: benchmarking runs every config on the same output; reset_to_zero re-zeroes out before each run, so the final launch adds x + y exactly once.
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_SIZE": 256}, num_warps=2),
        triton.Config({"BLOCK_SIZE": 1024}, num_warps=4),
        triton.Config({"BLOCK_SIZE": 2048}, num_warps=8),
    ],
    key=["n_elements"],
    reset_to_zero=["out_ptr"],
)
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.atomic_add(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


def add(x, y):
    out = torch.zeros_like(x)
    n = out.numel()
    add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)](x, y, out, n)
    return out
