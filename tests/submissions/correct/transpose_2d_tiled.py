# drill: transpose
# expect: pass
"""A 2-D tiled transpose: a grid of (row-tile, col-tile) programs, each moving a BLOCK_M x BLOCK_N tile."""
import torch
import triton
import triton.language as tl


@triton.jit
def transpose_tile(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)  # rows of x
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)  # columns of x
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    tile = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask)
    tl.store(out_ptr + cols[None, :] * M + rows[:, None], tile, mask=mask)  # out[c, r] = x[r, c]


def transpose(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((N, M), device=x.device, dtype=x.dtype)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))
    transpose_tile[grid](x, out, M, N, BLOCK_M=32, BLOCK_N=32)
    return out
