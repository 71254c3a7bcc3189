# drill: transpose
# expect: indexing
"""Reads x at the output's strides (x1 * M + x0): a plain copy, in bounds, wrong unless M or N is 1."""
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
    tmp0 = tl.load(in_ptr0 + (x1 * M + x0), xmask)
    tl.store(out_ptr0 + xindex, tmp0, xmask)


def transpose(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((N, M), device=x.device, dtype=x.dtype)
    grid = lambda meta: (triton.cdiv(M * N, meta["XBLOCK"]),)
    transpose_kernel[grid](x, out, M, N, XBLOCK=1024)
    return out
