# drill: softmax
# expect: pass
# style: FlashAttention-2 habit: exponentials through tl.exp2 with a log2(e) prescale, fp32 upcast with .to(tl.float32)
# why: exp(x - max) == exp2((x - max) * log2 e); -inf padding and the max subtraction are both there.
import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def softmax_exp2_kernel(X, Y, stride_xm, stride_ym, N, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK_N)
    x = tl.load(X + pid * stride_xm + offs, mask=offs < N, other=float("-inf")).to(tl.float32)
    z = (x - tl.max(x, axis=0)) * LOG2E
    p = tl.exp2(z)
    tl.store(Y + pid * stride_ym + offs, p / tl.sum(p, axis=0), mask=offs < N)


def softmax(x):
    M, N = x.shape
    y = torch.empty_like(x)
    softmax_exp2_kernel[(M,)](x, y, x.stride(0), y.stride(0), N, BLOCK_N=triton.next_power_of_2(N))
    return y
