# drill: row-sum
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(in_ptr0, out_ptr0, M, N, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    xmask = xindex < M
    acc = tl.zeros([XBLOCK, RBLOCK], dtype=tl.float32)
    for roffset in range(0, N, RBLOCK):
        rindex = tl.arange(0, RBLOCK)  # columns of this step
        mask = xmask[:, None] & (rindex[None, :] < N)
        data = tl.load(in_ptr0 + xindex[:, None] * N + rindex[None, :], mask, other=0.0)
        acc += data
    tl.store(out_ptr0 + xindex, tl.sum(acc, axis=1), xmask)


def row_sum(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), device=x.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(M, meta["XBLOCK"]),)
    row_sum_kernel[grid](x, out, M, N, XBLOCK=8, RBLOCK=128)
    return out
