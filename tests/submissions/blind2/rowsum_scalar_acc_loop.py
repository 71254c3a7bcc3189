# drill: row-sum
# expect: error
# style: Python-style accumulator `acc = 0.0` then `acc += tl.load(...)` (a block) inside the column loop
# why: the compiler requires a loop-carried variable to keep its type: acc starts as an fp32 scalar and becomes a <BLOCK> block ("Loop-carried variable acc has initial type fp32 but is re-assigned to <['128'], fp32> in loop"); the interpreter broadcasts silently and gets the right sums. The compiled behaviour was checked on an H200 (Triton 3.6).
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = 0.0
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + offs, mask=offs < N, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def row_sum(x):
    M, N = x.shape
    out = torch.empty(M, device=x.device, dtype=torch.float32)
    row_sum_kernel[(M,)](x, out, N, x.stride(0), BLOCK=128)
    return out
