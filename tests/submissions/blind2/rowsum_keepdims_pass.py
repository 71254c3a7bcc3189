# drill: row-sum
# expect: pass
# style: tl.sum(..., axis=1, keep_dims=True) giving an (XBLOCK, 1) block stored through [:, None] pointers; tl.range with num_stages for the column loop
# why: masked 2-D loads with other=0, float32 accumulator, the (XBLOCK, 1) result is stored with a matching (XBLOCK, 1) mask.
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, M, N, stride_xm, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    rows = tl.program_id(axis=0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]    # (XBLOCK, 1)
    acc = tl.zeros((XBLOCK, 1), dtype=tl.float32)
    for off in tl.range(0, N, RBLOCK, num_stages=2):
        cols = off + tl.arange(0, RBLOCK)[None, :]                           # (1, RBLOCK)
        x = tl.load(x_ptr + rows * stride_xm + cols, mask=(rows < M) & (cols < N), other=0.0)
        acc += tl.sum(x.to(tl.float32), axis=1, keep_dims=True)
    tl.store(out_ptr + rows, acc, mask=rows < M)


def row_sum(x):
    M, N = x.shape
    out = torch.empty((M,), device=x.device, dtype=torch.float32)
    row_sum_kernel[(triton.cdiv(M, 16),)](x, out, M, N, x.stride(0), XBLOCK=16, RBLOCK=64)
    return out
