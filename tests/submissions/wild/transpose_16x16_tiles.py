# drill: transpose
# expect: pass
# Small 16x16 tiles with explicit strides (never assumes contiguous): many programs, correct.
import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(in_ptr, out_ptr, M, N, stride_im, stride_in, stride_om, stride_on,
                     TILE: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * TILE + tl.arange(0, TILE)
    offs_n = pid_n * TILE + tl.arange(0, TILE)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    block = tl.load(in_ptr + offs_m[:, None] * stride_im + offs_n[None, :] * stride_in, mask=mask)
    tl.store(out_ptr + offs_n[None, :] * stride_om + offs_m[:, None] * stride_on, block, mask=mask)


def transpose(x):
    M, N = x.shape
    out = torch.empty((N, M), device=x.device, dtype=x.dtype)
    grid = (triton.cdiv(M, 16), triton.cdiv(N, 16))
    transpose_kernel[grid](x, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1), TILE=16)
    return out
