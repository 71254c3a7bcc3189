# drill: transpose
# expect: indexing
# also-ok: grid
# style: nervous candidate mixes up the program ids: grid is (tiles along M, tiles along N) but pid_m reads axis 1
# why: tile rows/cols come from the wrong grid axis, so whenever the tile grid is not square some output tiles are never computed (e.g. rows 320..346 of x at 347x301) while the extra programs are fully masked; every access stays in bounds.
import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, out_ptr, M, N, stride_xm, BLOCK: tl.constexpr):
    pid_m = tl.program_id(1)
    pid_n = tl.program_id(0)
    rm = pid_m * BLOCK + tl.arange(0, BLOCK)
    rn = pid_n * BLOCK + tl.arange(0, BLOCK)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(x_ptr + rm[:, None] * stride_xm + rn[None, :], mask=mask)
    tl.store(out_ptr + rn[None, :] * M + rm[:, None], tile, mask=mask)


def transpose(x):
    M, N = x.shape
    out = torch.empty((N, M), device=x.device, dtype=x.dtype)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    transpose_kernel[grid](x, out, M, N, x.stride(0), BLOCK=32)
    return out
