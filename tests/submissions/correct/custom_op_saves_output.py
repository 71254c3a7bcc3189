# drill: custom-op
# expect: pass
# Saves the output instead of the inputs (out > 0 is the same mask), allocates with torch.empty, mutates_args={}.
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
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n_elements = out.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    wrap_triton(add_relu_kernel)[grid](x, y, out, n_elements, BLOCK_SIZE=1024)
    return out


def setup_context(ctx, inputs, output):
    ctx.save_for_backward(output)  # relu(x + y) > 0 exactly where x + y > 0


def backward(ctx, grad):
    (out,) = ctx.saved_tensors
    g = torch.where(out > 0, grad, torch.zeros_like(grad))
    return g, g


add_relu.register_autograd(backward, setup_context=setup_context)


def model(x, y):
    return add_relu(x, y) * 2
