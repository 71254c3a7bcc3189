# drill: gelu
"""Reference solution for the gelu drill — the guide's §2.9: tanh-approximate GELU in one kernel.

    gelu(x) = 0.5 · x · (1 + tanh(sqrt(2/π) · (x + 0.044715 · x³)))

Written in eager PyTorch this is a chain of nine pointwise kernels, each writing its result to HBM for the next one
to read: 22·n·4 bytes. Fused, x is read once and the result written once: 2·n·4 bytes. That is what torch.compile
generates (`triton_poi_fused_..._0`), and what F.gelu(approximate="tanh") does in one hand-written aten kernel.

tanh: the guide's Inductor output calls `libdevice.tanh`, which Triton's CPU interpreter cannot run. The identity
tanh(z) = 2·sigmoid(2z) − 1 runs everywhere and stays finite for large |z| (sigmoid saturates to 0 or 1), unlike
(e^{2z} − 1) / (e^{2z} + 1), which gives inf/inf = nan once e^{2z} overflows.
"""
import torch
import triton
import triton.language as tl


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
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)  # sqrt(2/pi) * (x + 0.044715 x^3)
    tanh_inner = 2.0 * tl.sigmoid(2.0 * inner) - 1.0  # tanh without libdevice
    tl.store(out_ptr + offsets, 0.5 * x * (1.0 + tanh_inner), mask=mask)


def gelu(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    gelu_kernel[grid](x, out, n_elements, BLOCK_SIZE=1024)
    return out
