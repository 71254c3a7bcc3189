# drill: row-sum
# expect: pass
# Split-N reduction in the style of kernel libraries: a 2-D grid (rows x column blocks), each program sums one
# block of one row and accumulates into a zeroed output with tl.atomic_add.
import torch
import triton
import triton.language as tl


@triton.jit
def _row_sum_split_kernel(X, Out, stride_xm, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    col_block = tl.program_id(1)
    cols = col_block * BLOCK_N + tl.arange(0, BLOCK_N)
    x = tl.load(X + row * stride_xm + cols, mask=cols < N, other=0.0)
    tl.atomic_add(Out + row, tl.sum(x.to(tl.float32), axis=0))


def row_sum(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.zeros(M, device=x.device, dtype=torch.float32)
    BLOCK_N = 128
    grid = (M, triton.cdiv(N, BLOCK_N))
    _row_sum_split_kernel[grid](x, out, x.stride(0), N, BLOCK_N=BLOCK_N)
    return out
