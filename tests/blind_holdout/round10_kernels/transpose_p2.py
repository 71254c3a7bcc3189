# drill: transpose
import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(in_ptr0, out_ptr0, M, N, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)  # flat index into out
    xmask = xindex < M * N
    x0 = xindex % M   # column of out
    x1 = xindex // M  # row of out
    tmp0 = tl.load(in_ptr0 + (x0 + M * x1), xmask)
    tl.store(out_ptr0 + xindex, tmp0, xmask)


def transpose(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((N, M), device=x.device, dtype=x.dtype)
    grid = lambda meta: (triton.cdiv(M * N, meta["XBLOCK"]),)
    transpose_kernel[grid](x, out, M, N, XBLOCK=1024)
    return out
