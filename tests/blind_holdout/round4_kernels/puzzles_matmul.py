# drill: matmul
import torch
import triton
import triton.language as tl


@triton.jit
def dot_kernel(x_ptr, y_ptr, z_ptr, M, N, K,
               B0: tl.constexpr, B1: tl.constexpr, B_MID: tl.constexpr):
    pid_0 = tl.program_id(0)
    pid_1 = tl.program_id(1)
    off_i = pid_0 * B0 + tl.arange(0, B0)
    off_j = pid_1 * B1 + tl.arange(0, B1)
    off_k = tl.arange(0, B_MID)
    mask_i = off_i < M
    mask_j = off_j < N
    z = tl.zeros((B0, B1), dtype=tl.float32)
    for k in range(0, K, B_MID):
        kk = k + off_k
        mask_k = kk < K
        x = tl.load(x_ptr + off_i[:, None] * K + kk[None, :], mask=mask_i[:, None] & mask_k[None, :], other=0.0)
        y = tl.load(y_ptr + kk[:, None] * N + off_j[None, :], mask=mask_k[:, None] & mask_j[None, :], other=0.0)
        z = tl.dot(x, y, z)
    tl.store(z_ptr + off_i[:, None] * N + off_j[None, :], z.to(tl.float16), mask=mask_i[:, None] & mask_j[None, :])


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    B0, B1, B_MID = 32, 32, 32
    grid = (triton.cdiv(M, B0), triton.cdiv(N, B1))
    dot_kernel[grid](a, b, c, M, N, K, B0=B0, B1=B1, B_MID=B_MID)
    return c
