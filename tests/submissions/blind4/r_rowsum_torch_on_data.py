# drill: row-sum
# expect: torch-fallback
"""The counterpart of r_rowsum_sglang_offset_table: here torch computes with x's values (a cumulative sum of the
rows' first elements feeds the kernel's offsets and the output): torch computing with the data is a fallback."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for c in range(0, N, BLOCK):
        cols = c + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def row_sum(x):
    M, N = x.shape
    out = torch.empty(M, device=x.device, dtype=x.dtype)
    row_sum_kernel[(M,)](x, out, N, BLOCK=256)
    return out + x[:, 0] * 0  # torch reads x's values toward the output
