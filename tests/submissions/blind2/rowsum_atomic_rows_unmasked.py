# drill: row-sum
# expect: mask
# style: split-N reduction with XBLOCK rows per program and a vector tl.atomic_add of the per-row partials, row mask forgotten on the atomic
# why: the loads are masked, but the last row-block's atomic_add targets out[rows] for rows >= M (adding 0.0 past the end of out): an unmasked atomic on the tail.
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, M, N, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    rows = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    cols = tl.program_id(1) * RBLOCK + tl.arange(0, RBLOCK)
    m = (rows[:, None] < M) & (cols[None, :] < N)
    v = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=m, other=0.0)
    tl.atomic_add(out_ptr + rows, tl.sum(v, axis=1))


def row_sum(x):
    x = x.contiguous()
    M, N = x.shape
    out = torch.zeros(M, device=x.device, dtype=torch.float32)
    XBLOCK, RBLOCK = 16, 128
    row_sum_kernel[(triton.cdiv(M, XBLOCK), triton.cdiv(N, RBLOCK))](x, out, M, N, XBLOCK=XBLOCK, RBLOCK=RBLOCK)
    return out
