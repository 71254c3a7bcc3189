# drill: row-sum
# expect: reduction
# A 2-D tile kernel (BLOCK rows x BLOCK columns per step) that sums its tile with tl.sum(x, axis=0): down the rows,
# not along them. The tile is square, so the shapes line up and nothing is out of bounds; every output is a column
# sum of the program's rows. The report names the axis, not the reduction's generic text.
# says: the tile's other axis
# says: axis=1
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, M, N, stride_m, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :], mask=mask, other=0.0)
        acc += tl.sum(x.to(tl.float32), axis=0)
    tl.store(out_ptr + rows, acc, mask=rows < M)


def row_sum(x):
    M, N = x.shape
    out = torch.empty(M, device=x.device, dtype=torch.float32)
    BLOCK = 32
    row_sum_kernel[(triton.cdiv(M, BLOCK),)](x, out, M, N, x.stride(0), BLOCK=BLOCK)
    return out.to(x.dtype)
