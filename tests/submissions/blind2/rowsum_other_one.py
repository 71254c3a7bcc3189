# drill: row-sum
# expect: other
# style: candidate copies `other=1.0` from a row-product kernel
# why: masked lanes read 1.0, which is not the identity of a sum: every row gains (#padded lanes) — wrong whenever N is not a multiple of RBLOCK.
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, M, N, stride_m, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    rows = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    rmask = rows < M
    acc = tl.zeros([XBLOCK, RBLOCK], dtype=tl.float32)
    for start in range(0, N, RBLOCK):
        cols = start + tl.arange(0, RBLOCK)
        mask = rmask[:, None] & (cols[None, :] < N)
        acc += tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :], mask=mask, other=1.0)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=rmask)


def row_sum(x):
    M, N = x.shape
    out = torch.empty(M, device=x.device, dtype=torch.float32)
    row_sum_kernel[(triton.cdiv(M, 4),)](x, out, M, N, x.stride(0), XBLOCK=4, RBLOCK=128)
    return out
