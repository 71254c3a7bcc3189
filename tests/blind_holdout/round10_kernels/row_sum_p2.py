# drill: row-sum
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(in_ptr0, out_ptr0, M, N, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    xindex = pid * XBLOCK + tl.arange(0, XBLOCK).to(tl.int64)
    xmask = xindex < M
    n64 = tl.cast(N, tl.int64)
    acc = tl.zeros([XBLOCK], dtype=tl.float32)
    roffset = tl.full([], 0, tl.int64)
    while roffset < n64:
        rindex = roffset + tl.arange(0, RBLOCK).to(tl.int64)
        rmask = rindex < n64
        data = tl.load(in_ptr0 + xindex[:, None] * n64 + rindex[None, :], xmask[:, None] & rmask[None, :], other=0.0)
        acc += tl.sum(data, axis=1)
        roffset += RBLOCK
    tl.store(out_ptr0 + xindex, acc, xmask)


def row_sum(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), device=x.device, dtype=torch.float32)
    XBLOCK, RBLOCK = 2, 64
    grid = (triton.cdiv(M, XBLOCK),)
    row_sum_kernel[grid](x, out, M, N, XBLOCK=XBLOCK, RBLOCK=RBLOCK)
    return out
