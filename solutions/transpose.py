# drill: transpose
"""Reference solution for `transpose` — the guide's §2.6.2 / §2.7: a 2-D pointwise op on a flat index.

Inductor gives every output element one flat index `xindex` (row-major over the OUTPUT's shape) and decomposes it
with the output's sizes: for an (N, M) output, col = xindex % M and row = xindex // M. The input x (M, N) is then
read at its own strides: out[row, col] = x[col, row] lives at col * N + row. (The guide writes `% N`, which is only
right for square tensors.)
"""
import torch
import triton
import triton.language as tl


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
    x0 = xindex % M  # column of out = row of x
    x1 = xindex // M  # row of out = column of x
    tmp0 = tl.load(in_ptr0 + (x0 * N + x1), xmask)
    tl.store(out_ptr0 + xindex, tmp0, xmask)


def transpose(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((N, M), device=x.device, dtype=x.dtype)
    grid = lambda meta: (triton.cdiv(M * N, meta["XBLOCK"]),)
    transpose_kernel[grid](x, out, M, N, XBLOCK=1024)
    return out
