# drill: custom-op
import torch
import triton
import triton.language as tl
from torch.library import triton_op, wrap_triton


@triton.jit
def add_relu_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.maximum(x + y, 0.0), mask=mask)


def _launch(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    n = out.numel()
    wrap_triton(add_relu_kernel)[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)


@triton_op("drill::add_relu", mutates_args=())
def add_relu(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    y = y.contiguous()
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    _launch(x, y, out)
    return out


def _setup_context(ctx, inputs, output):
    # the output alone tells where relu let the gradient through
    ctx.save_for_backward(output)


def _backward(ctx, grad):
    (out,) = ctx.saved_tensors
    g = torch.where(out > 0, grad, torch.zeros_like(grad))
    return g, g


add_relu.register_autograd(_backward, setup_context=_setup_context)


def model(x, y):
    return add_relu(x, y) * 2
