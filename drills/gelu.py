# drill: gelu
"""GELU (tanh approximation) in one kernel — the guide's §2.9.

    gelu(x) = 0.5 · x · (1 + tanh(sqrt(2/π) · (x + 0.044715 · x³)))     == F.gelu(x, approximate="tanh")

Written op by op in eager PyTorch this is nine pointwise kernels, each writing a full-size intermediate to HBM for
the next one to read (22·n·4 bytes). torch.compile fuses the chain into one Triton kernel that reads x once and
writes the result once (2·n·4 bytes). Write that kernel yourself.

tanh: Inductor's kernel calls `libdevice.tanh`, which Triton's CPU interpreter cannot run. Use an identity that
runs everywhere, e.g. tanh(z) = 2·sigmoid(2z) − 1 (`tl.sigmoid`). Careful with (e^{2z} − 1) / (e^{2z} + 1): for
large z, e^{2z} overflows and inf / inf is nan — the graded inputs include values up to ±1e4.

Fill the HOLE(...) below, then run `drill grade gelu.py`. Stuck? `drill hint gelu`.
"""
import torch
import triton
import triton.language as tl


def HOLE(what: str):
    """A hole for you to fill. `drill grade` reports every HOLE(...) still in this file, with its line."""
    raise NotImplementedError(f"fill the hole: {what}")


@triton.jit
def gelu_kernel(x_ptr,  # pointer to the input vector
                out_ptr,  # pointer to the output vector
                n_elements,  # number of elements
                BLOCK_SIZE: tl.constexpr,  # elements handled by one program (a power of two)
                ):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    result = HOLE("gelu")  # the whole formula on x, in registers (sqrt(2/π) = 0.7978845608028654)
    tl.store(out_ptr + offsets, result, mask=mask)


def gelu(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    gelu_kernel[grid](x, out, n_elements, BLOCK_SIZE=1024)
    return out
