# drill: rmsnorm
# expect: shape
# also-ok: error
# style: output allocated as torch.empty(x.shape, dtype=x.dtype) with no device= (works on the laptop, breaks on the GPU box)
# why: the output is always a CPU tensor: the allocation ignores x.device (with CUDA inputs Triton's launcher refuses the host pointer, "cpu tensor?"), so the result is on the wrong device.
import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, y_ptr, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, axis=0) / N + eps)
    tl.store(y_ptr + row * stride + cols, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


def rmsnorm(x, weight, eps=1e-6):
    M, N = x.shape
    y = torch.empty(x.shape, dtype=x.dtype)
    rmsnorm_kernel[(M,)](x, weight, y, x.stride(0), N, eps, BLOCK=triton.next_power_of_2(N))
    return y
