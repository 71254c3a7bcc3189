# drill: softmax
# expect: indexing
# also-ok: wrong-values
# style: row start written as `input_ptr + row_idx` (the stride multiply forgotten)
# why: row r reads the window x.flat[r : r + N] instead of row r, so every row but the first is wrong; all lanes stay inside x and out, so no mask fires.
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(output_ptr, input_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    row = tl.load(input_ptr + row_idx + col_offsets, mask=mask, other=-float("inf"))
    row = row - tl.max(row, axis=0)
    num = tl.exp(row)
    tl.store(output_ptr + row_idx * n_cols + col_offsets, num / tl.sum(num, axis=0), mask=mask)


def softmax(x):
    x = x.contiguous()
    M, N = x.shape
    y = torch.empty_like(x)
    softmax_kernel[(M,)](y, x, N, BLOCK_SIZE=triton.next_power_of_2(N))
    return y
