# drill: gelu
import logging

import torch
import triton
import triton.language as tl

from _helpers import tanh

logger = logging.getLogger(__name__)


@triton.jit
def gelu_tanh(x):
    x_fp32 = x.to(tl.float32)
    output = (
        0.5
        * x_fp32
        * (
            1
            + tanh(x_fp32 * 0.79788456 * (1 + 0.044715 * x_fp32 * x_fp32))
        )
    )
    return output


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_SIZE": 512}, num_warps=4),
        triton.Config({"BLOCK_SIZE": 2048}, num_warps=8),
    ],
    key=["n_elements"],
)
@triton.jit
def gelu_tanh_kernel(X, Y, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(X + offsets, mask=mask)
    y = gelu_tanh(x)
    tl.store(Y + offsets, y.to(Y.dtype.element_ty), mask=mask)


def gelu(A: torch.Tensor) -> torch.Tensor:
    logger.debug("GEMS GELU FORWARD")
    A = A.contiguous()
    out = torch.empty_like(A)
    n_elements = A.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    gelu_tanh_kernel[grid](A, out, n_elements)
    return out
