# drill: rmsnorm
# expect: reduction
# also-ok: mask
# style: row offset written as row * BLOCK_SIZE (the padded width) instead of row * stride / N
# why: rows after the first are read from the wrong place (row * BLOCK_SIZE + col), so their mean square and outputs are wrong; for N < BLOCK_SIZE the last rows also read past the end of x.
import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, y_ptr, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(x_ptr + row * BLOCK_SIZE + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, axis=0) / N + eps)
    tl.store(y_ptr + row * N + cols, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


def rmsnorm(x, weight, eps=1e-6):
    x = x.contiguous()
    M, N = x.shape
    y = torch.empty_like(x)
    rmsnorm_kernel[(M,)](x, weight, y, N, eps, BLOCK_SIZE=triton.next_power_of_2(N))
    return y
