# drill: transpose
# expect: shape
# style: kernel that honours the output's strides, but the wrapper allocates the output column-major with torch.empty_strided((N, M), (1, N))
# why: every out[r, c] equals x[c, r], but the memory layout is x's own (strides (1, N)): a non-contiguous (N, M) result, i.e. no transpose of the data happened.
import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, o_ptr, M, N, sxm, sxn, som, son, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(x_ptr + rm[:, None] * sxm + rn[None, :] * sxn, mask=mask)
    # out[n, m] = x[m, n]
    tl.store(o_ptr + rn[None, :] * som + rm[:, None] * son, tile, mask=mask)


def transpose(x):
    M, N = x.shape
    out = torch.empty_strided((N, M), (1, N), device=x.device, dtype=x.dtype)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    transpose_kernel[grid](x, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1), BM=32, BN=32)
    return out
