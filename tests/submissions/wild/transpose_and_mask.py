# drill: transpose
# expect: pass
# 2-D tiles with the mask written `rmask and cmask` (Python's `and` on tensors): the compiler ands them
# element-wise (with a deprecation warning), so on a GPU this is correct.
import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rm[:, None] < M
    cmask = rn[None, :] < N
    mask = rmask and cmask
    tile = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask)
    tl.store(y_ptr + rn[None, :] * M + rm[:, None], tile, mask=mask)


def transpose(x):
    M, N = x.shape
    y = torch.empty((N, M), device=x.device, dtype=x.dtype)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    transpose_kernel[grid](x, y, M, N, BLOCK_M=32, BLOCK_N=32)
    return y
