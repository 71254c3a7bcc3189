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


@triton_op("drill::add_relu", mutates_args={})
def add_relu(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    wrap_triton(add_relu_kernel)[grid](x, y, out, n_elements, BLOCK_SIZE=1024)
    return out


def setup_context(ctx, inputs, output):
    x, y = inputs
    ctx.save_for_backward(x, y)


def backward(ctx, grad):
    x, y = ctx.saved_tensors
    # relu passes the gradient through unchanged to both summands
    return grad, grad


add_relu.register_autograd(backward, setup_context=setup_context)


def model(x, y):
    return add_relu(x, y) * 2
