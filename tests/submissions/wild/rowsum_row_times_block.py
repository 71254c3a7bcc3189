# drill: row-sum
# expect: indexing
# One program per row, but the row's start is row * BLOCK instead of row * N (the row stride): rows read the
# wrong elements, and the last rows run past the end of x.
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * BLOCK + cols, mask=cols < N, other=0.0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))


def row_sum(x):
    M, N = x.shape
    out = torch.empty(M, device=x.device, dtype=torch.float32)
    row_sum_kernel[(M,)](x, out, N, BLOCK=triton.next_power_of_2(N))
    return out
