# drill: row-sum
# expect: pass
"""sglang varlen style: the wrapper builds each row's start offset in torch (`torch.arange(M) * x.stride(0)`)
and the kernel loads it. Torch building launch metadata from shapes and strides is not a torch fallback (it
computes nothing from x's values); it was called `torch-fallback` (issue 17, item 4)."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, starts_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    start = tl.load(starts_ptr + row)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for c in range(0, N, BLOCK):
        cols = c + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + start + cols, mask=cols < N, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def row_sum(x):
    M, N = x.shape
    starts = torch.arange(M, device=x.device, dtype=torch.int64) * x.stride(0)
    out = torch.empty(M, device=x.device, dtype=x.dtype)
    row_sum_kernel[(M,)](x, starts, out, N, BLOCK=256)
    return out
