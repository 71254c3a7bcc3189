# drill: softmax
# expect: stability
# style: candidate remembers "subtract something for stability" and subtracts the row minimum (tl.min) instead of the max
# why: x - min(x) is >= 0 and as large as the row's range, so exp overflows float32 on rows scaled x30 (range ~180); on randn rows it happens to be fine.
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * stride + cols, mask=mask, other=float("inf"))
    shifted = x - tl.min(x, axis=0)
    num = tl.where(mask, tl.exp(shifted), 0.0)
    tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=mask)


def softmax(x):
    M, N = x.shape
    out = torch.empty_like(x)
    softmax_kernel[(M,)](out, x, x.stride(0), N, BLOCK=triton.next_power_of_2(N))
    return out
