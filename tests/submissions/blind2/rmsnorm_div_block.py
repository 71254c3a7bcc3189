# drill: rmsnorm
# expect: reduction
# style: mean taken as tl.sum(x * x) / BLOCK_SIZE ("the block is the row")
# why: BLOCK_SIZE is the next power of two >= N; dividing by it instead of N shrinks the mean square whenever N is not a power of two (781, 3000).
import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, y_ptr, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    mean_sq = tl.sum(x * x, axis=0) / BLOCK_SIZE
    y = x * tl.rsqrt(mean_sq + eps) * w
    tl.store(y_ptr + row * stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def rmsnorm(x, weight, eps=1e-6):
    M, N = x.shape
    y = torch.empty_like(x)
    rmsnorm_kernel[(M,)](x, weight, y, x.stride(0), N, eps, BLOCK_SIZE=triton.next_power_of_2(N))
    return y
