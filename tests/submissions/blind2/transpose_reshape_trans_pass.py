# drill: transpose
# expect: pass
# style: load a flat 1-D chunk of x's rows, tl.reshape it to (ROWS, N_PAD) and store tl.trans of it (the 'reshape then permute' habit from torch)
# why: each program reads ROWS full rows of x (power-of-2 padded, masked) as a 2-D tile, transposes it in registers and stores it at out's (N, M) addresses; masks are combined with &.
import torch
import triton
import triton.language as tl


@triton.jit
def transpose_rows_kernel(x_ptr, out_ptr, M, N, ROWS: tl.constexpr, N_PAD: tl.constexpr):
    r0 = tl.program_id(0) * ROWS
    flat = tl.arange(0, ROWS * N_PAD)
    r = r0 + flat // N_PAD
    c = flat % N_PAD
    m = (r < M) & (c < N)
    v = tl.load(x_ptr + r * N + c, mask=m, other=0.0)
    tile = tl.reshape(v, (ROWS, N_PAD))              # tile[i, j] = x[r0 + i, j]
    tile_t = tl.trans(tile)                          # (N_PAD, ROWS)
    cols = tl.arange(0, N_PAD)[:, None]              # output row = x column
    rows = r0 + tl.arange(0, ROWS)[None, :]          # output column = x row
    tl.store(out_ptr + cols * M + rows, tile_t, mask=(cols < N) & (rows < M))


def transpose(x):
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty((N, M), device=x.device, dtype=x.dtype)
    N_PAD = triton.next_power_of_2(N)
    ROWS = max(1, min(16, 4096 // N_PAD))
    transpose_rows_kernel[(triton.cdiv(M, ROWS),)](x, out, M, N, ROWS=ROWS, N_PAD=N_PAD)
    return out
