# drill: vector-add
# expect: pass
# style: compare-and-swap "publish once" idiom; atomic_cas has no mask, so dead lanes are aimed at a valid slot with a compare that can never match
# why: out is zeroed; live lanes CAS 0.0 -> x + y on their own element; dead lanes CAS element 0 against NaN, which never equals memory, so nothing extra is written and no lane leaves the tensor. The compiled behaviour was checked on an H200 (Triton 3.6).
import torch
import triton
import triton.language as tl


@triton.jit
def add_cas_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    live = offs < n
    v = tl.load(x_ptr + offs, mask=live, other=0.0) + tl.load(y_ptr + offs, mask=live, other=0.0)
    safe = tl.where(live, offs, 0)                      # no lane points past the end
    expected = tl.where(live, 0.0, float("nan"))        # NaN never compares equal: dead lanes are no-ops
    tl.atomic_cas(out_ptr + safe, expected, v)


def add(x, y):
    out = torch.zeros_like(x)
    n = out.numel()
    BLOCK = 1024
    add_cas_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, BLOCK=BLOCK)
    return out
