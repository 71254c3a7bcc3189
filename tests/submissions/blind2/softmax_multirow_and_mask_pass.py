# drill: softmax
# expect: pass
# style: several rows per program (BLOCK_M x BLOCK_N tile, tl.max/tl.sum over axis 1) with `mask = row_mask and col_mask`
# why: compiled, `and` on the two broadcast masks is element-wise, so padded rows and columns are masked and -inf padding keeps the max right; the 3.9 interpreter keeps only col_mask and reads rows past M on CPU, so judge it compiled. The compiled behaviour was checked on an H200 (Triton 3.6).
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_rows_kernel(x_ptr, y_ptr, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    row_mask = rows[:, None] < M
    col_mask = cols[None, :] < N
    mask = row_mask and col_mask
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=1)[:, None]
    e = tl.exp(x)
    y = e / tl.sum(e, axis=1)[:, None]
    tl.store(y_ptr + rows[:, None] * stride + cols[None, :], y, mask=mask)


def softmax(x):
    x = x.contiguous()
    M, N = x.shape
    BLOCK_N = triton.next_power_of_2(N)
    BLOCK_M = max(1, min(8, 4096 // BLOCK_N))
    y = torch.empty_like(x)
    softmax_rows_kernel[(triton.cdiv(M, BLOCK_M),)](x, y, M, N, x.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y
