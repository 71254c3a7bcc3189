# drill: row-sum
"""Reference solution for `row-sum` — the guide's §2.6.3: a reduction with an XBLOCK x RBLOCK loop.

Each program owns XBLOCK rows (`xindex`, masked by xindex < M) and walks the reduction dim in RBLOCK steps
(`rindex`, masked by rindex < N). The 2-D mask is their outer AND; masked lanes load 0, the identity of a sum.
The accumulator is float32 and stays XBLOCK x RBLOCK wide until one tl.sum at the end (as Inductor does).
"""
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(in_ptr0,  # x, (M, N) contiguous
                   out_ptr0,  # out, (M,)
                   M,  # rows: the x (pointwise) dim
                   N,  # columns: the r (reduction) dim
                   XBLOCK: tl.constexpr,  # rows per program
                   RBLOCK: tl.constexpr,  # columns per loop step
                   ):
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    xmask = xindex < M
    acc = tl.zeros([XBLOCK, RBLOCK], dtype=tl.float32)
    for roffset in range(0, N, RBLOCK):
        rindex = roffset + tl.arange(0, RBLOCK)
        rmask = rindex < N
        mask = xmask[:, None] & rmask[None, :]
        data = tl.load(in_ptr0 + xindex[:, None] * N + rindex[None, :], mask, other=0.0)
        acc += data
    tl.store(out_ptr0 + xindex, tl.sum(acc, axis=1), xmask)


def row_sum(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(M, meta["XBLOCK"]),)
    row_sum_kernel[grid](x, out, M, N, XBLOCK=8, RBLOCK=128)
    return out
