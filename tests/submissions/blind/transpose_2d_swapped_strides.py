# drill: transpose
# expect: indexing
import torch
import triton
import triton.language as tl

@triton.jit
def tkernel(x_ptr, o_ptr, M, N, sxm, sxn, som, son, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    msk = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(x_ptr + rm[:, None] * sxm + rn[None, :] * sxn, mask=msk)
    tl.store(o_ptr + rn[None, :] * son + rm[:, None] * som, tile, mask=msk)


def transpose(x):
    M, N = x.shape
    out = torch.empty((N, M), device=x.device, dtype=x.dtype)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    tkernel[grid](x, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1), BM=32, BN=32)
    return out
