# drill: transpose
# expect: pass
# style: out-of-bounds flag built with Python `or` ((rows >= M) or (cols >= N)) and the mask taken as ~oob
# why: compiled, `or` on tensors is an element-wise logical or of the broadcast flags, so ~oob is exactly the in-bounds mask; the 3.9 interpreter returns only (rows >= M), leaving the column tail unmasked on CPU — grade it compiled. The compiled behaviour was checked on an H200 (Triton 3.6).
import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(src, dst, M, N, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)[:, None]
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)[None, :]
    oob = (rows >= M) or (cols >= N)
    v = tl.load(src + rows * N + cols, mask=~oob)
    tl.store(dst + cols * M + rows, v, mask=~oob)


def transpose(x):
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty((N, M), device=x.device, dtype=x.dtype)
    transpose_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 64))](x, out, M, N, BLOCK_R=32, BLOCK_C=64)
    return out
