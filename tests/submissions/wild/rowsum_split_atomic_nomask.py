# drill: row-sum
# expect: mask
# Split-N reduction into a zeroed output with atomics; the column mask was forgotten, so the last column block of
# the last row reads past the end of x.
import torch
import triton
import triton.language as tl


@triton.jit
def _row_sum_split_kernel(X, Out, stride_xm, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    col_block = tl.program_id(1)
    cols = col_block * BLOCK_N + tl.arange(0, BLOCK_N)
    x = tl.load(X + row * stride_xm + cols)
    tl.atomic_add(Out + row, tl.sum(x.to(tl.float32), axis=0))


def row_sum(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.zeros(M, device=x.device, dtype=torch.float32)
    BLOCK_N = 128
    grid = (M, triton.cdiv(N, BLOCK_N))
    _row_sum_split_kernel[grid](x, out, x.stride(0), N, BLOCK_N=BLOCK_N)
    return out
