# drill: row-sum
import torch
import triton
import triton.language as tl


@triton.jit
def sum_kernel(x_ptr, z_ptr, N0, T, stride_x0, stride_x1, B0: tl.constexpr, B1: tl.constexpr):
    pid_0 = tl.program_id(0)
    off_i = pid_0 * B0 + tl.arange(0, B0)
    mask_i = off_i < N0
    z = tl.zeros([B0], dtype=tl.float32)
    for j in range(0, T, B1):
        off_j = j + tl.arange(0, B1)
        mask_j = off_j < T
        x = tl.load(x_ptr + off_i[:, None] * stride_x0 + off_j[None, :] * stride_x1,
                    mask=mask_i[:, None] & mask_j[None, :], other=0.0)
        z += tl.sum(x, axis=1)
    tl.store(z_ptr + off_i, z, mask=mask_i)


def row_sum(x: torch.Tensor) -> torch.Tensor:
    N0, T = x.shape
    z = torch.empty((N0,), device=x.device, dtype=torch.float32)
    B0, B1 = 16, 64
    sum_kernel[(triton.cdiv(N0, B0),)](x, z, N0, T, x.stride(0), x.stride(1), B0=B0, B1=B1)
    return z
