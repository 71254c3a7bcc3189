# drill: softmax
# expect: pass
"""Masked lanes load 0, then tl.where puts -inf there before the max: right, and must not be blamed."""
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(in_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(in_ptr + row * N + cols, mask=mask, other=0.0)
    x = tl.where(mask, x, -float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * N + cols, num / tl.sum(num, axis=0), mask=mask)


def softmax(x):
    M, N = x.shape
    out = torch.empty_like(x)
    softmax_kernel[(M,)](x, out, N, BLOCK=triton.next_power_of_2(N))
    return out
