# drill: softmax
"""Row-wise softmax, one program per row.

`softmax(x)` takes x of shape (M, N), float32, and returns softmax over dim 1.
Two holes: what masked lanes read (`other`), and the max subtraction. Random data with N a power of two hides
both (no lane is masked, nothing overflows): the grader also uses rows of 781 and 3000, all-negative rows, and rows
scaled x30.
Stuck? `drill hint softmax`.
"""
import torch
import triton
import triton.language as tl


def HOLE(what: str):
    """A hole for you to fill. `drill grade` reports every HOLE(...) still in this file, with its line."""
    raise NotImplementedError(f"fill the hole: {what}")


@triton.jit
def softmax_kernel(in_ptr,  # x, (M, N) contiguous
                   out_ptr,  # out, (M, N)
                   N,  # row length
                   BLOCK: tl.constexpr,  # a power of two >= N: the whole row in one block
                   ):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(in_ptr + row * N + cols, mask=mask, other=0.0)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * N + cols, num / den, mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(N)
    num_warps = 4 if BLOCK <= 2048 else (8 if BLOCK <= 8192 else 16)
    softmax_kernel[(M,)](x, out, N, BLOCK=BLOCK, num_warps=num_warps)
    return out
