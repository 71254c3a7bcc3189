"""A plain Triton copy kernel: with x.clone(), the reference for "how fast can this GPU stream bytes at this n".

Imported only where a GPU times kernels (grader.speed.timing's CUDA parts); never under the interpreter.
"""
from __future__ import annotations

import triton
import triton.language as tl

# (BLOCK, num_warps) tried for the copy; the fastest at each n is the reference.
CONFIGS = ((1024, 4), (4096, 8))


@triton.jit
def _copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


def triton_copy(src, dst, block: int, num_warps: int):
    n = src.numel()
    _copy_kernel[(triton.cdiv(n, block),)](src, dst, n, BLOCK=block, num_warps=num_warps)
    return dst
