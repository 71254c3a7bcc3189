# drill: transpose
"""Transpose as Inductor writes it — a 2-D pointwise op on one flat index (the guide's §2.6.2 / §2.7).

`transpose(x)` takes x of shape (M, N), float32, contiguous, and returns a contiguous (N, M) tensor.
Each program handles XBLOCK consecutive elements of the OUTPUT; fill the index decomposition.
Graded on 37x5, 1x123, 123x1 and 347x301: non-square shapes, sizes that are not multiples of the block.
Stuck? `drill hint transpose`.
"""
import torch
import triton
import triton.language as tl


def HOLE(what: str):
    """A hole for you to fill. `drill grade` reports every HOLE(...) still in this file, with its line."""
    raise NotImplementedError(f"fill the hole: {what}")


@triton.jit
def transpose_kernel(in_ptr0,  # x, (M, N) contiguous
                     out_ptr0,  # out, (N, M) contiguous
                     M,  # rows of x = columns of out
                     N,  # columns of x = rows of out
                     XBLOCK: tl.constexpr,  # output elements per program
                     ):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)  # flat index into out
    xmask = xindex < M * N
    x0 = xindex % N
    x1 = xindex // N
    tmp0 = tl.load(in_ptr0 + x0 * M + x1, xmask)
    tl.store(out_ptr0 + xindex, tmp0, xmask)


def transpose(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((N, M), device=x.device, dtype=x.dtype)
    grid = lambda meta: (triton.cdiv(M * N, meta["XBLOCK"]),)
    transpose_kernel[grid](x, out, M, N, XBLOCK=1024)
    return out
