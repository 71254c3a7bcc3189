# drill: vector-add
# expect: error
# style: candidate hoists the tile size to a plain module constant BLOCK = 1024 and uses it inside the kernel
# why: the compiler refuses non-constexpr globals ("Cannot access global variable BLOCK from within @jit'ed function"), so the launch raises on a GPU; the interpreter happily reads the Python global and passes. The compiled behaviour was checked on an H200 (Triton 3.6).
import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _vec_add(x_ptr, y_ptr, o_ptr, numel):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < numel
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def add(x, y):
    o = torch.empty_like(x)
    numel = o.numel()
    _vec_add[(triton.cdiv(numel, BLOCK),)](x, y, o, numel)
    return o
