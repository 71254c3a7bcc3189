# drill: rmsnorm
# expect: pass
"""No upcast after the load: bfloat16 inputs are squared and summed in bfloat16. A GPU computes that (each op
rounded to bf16, the sum's partial sums too) and the result stays within bf16's tolerance: correct, if less
accurate than upcasting. The interpreter used to compute on the raw 16-bit patterns and stopped the grade; it now
computes bf16 as the GPU does (grader/watch/bf16_cpu.py), so the verdict is the GPU's (issue 17)."""
import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr,  # x, (M, N) contiguous
                   w_ptr,  # weight, (N,)
                   out_ptr,  # out, (M, N), x's dtype
                   N,  # row length
                   eps,  # added to the mean square
                   BLOCK: tl.constexpr,  # a power of two >= N
                   ):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    mean_sq = tl.sum(x * x, axis=0) / N  # divide by N: the masked lanes are zeros, not data
    rstd = tl.rsqrt(mean_sq + eps)
    y = x * rstd * w
    tl.store(out_ptr + row * N + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(N)
    num_warps = 4 if BLOCK <= 2048 else (8 if BLOCK <= 8192 else 16)
    rmsnorm_kernel[(M,)](x, weight, out, N, eps, BLOCK=BLOCK, num_warps=num_warps)
    return out
