# drill: softmax
# expect: other
"""The natural slip: masked lanes load the default 0, so they join both the max and the sum."""
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(in_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(in_ptr + row * N + cols, mask=mask, other=0.0)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * N + cols, num / tl.sum(num, axis=0), mask=mask)


def softmax(x):
    M, N = x.shape
    out = torch.empty_like(x)
    softmax_kernel[(M,)](x, out, N, BLOCK=triton.next_power_of_2(N))
    return out
