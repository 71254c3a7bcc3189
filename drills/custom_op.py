# drill: custom-op
"""Your Triton kernel as a PyTorch operator that torch.compile traces with no graph break.

`add_relu_kernel` below is a finished fused add + relu kernel. Make it the operator `drill::add_relu`:
register the function with `torch.library.triton_op` (it becomes a real operator: torch.compile, export, opcheck and
autograd all see it), launch the kernel through `torch.library.wrap_triton` (tracing at the dispatcher level cannot
see a raw launch), allocate the output with torch ops only (triton_op also runs this function on FakeTensors to learn
the output's shape, dtype and device: that is the operator's fake/meta behaviour), and register its gradient with
`register_autograd`. `model(x, y) = add_relu(x, y) * 2` is the entry point.

Then `drill grade custom_op.py`: the kernel gets the usual lane checks; `torch.library.opcheck` must pass on the
operator; `torch.compile(model, fullgraph=True)` (backend aot_eager) must run with no graph break and no recompile
over n = 1000, 4097, 12289 (marked dynamic), with the same values and gradients as eager; on a GPU, Inductor's output
code must launch your kernel. Needs torch >= 2.6 (triton_op, wrap_triton, register_autograd, opcheck).
Stuck? `drill hint custom-op`.
"""
import torch
import triton
import triton.language as tl
from torch.library import triton_op, wrap_triton


def HOLE(what: str):
    """A hole for you to fill. `drill grade` reports every HOLE(...) still in this file, with its line."""
    raise NotImplementedError(f"fill the hole: {what}")


@triton.jit
def add_relu_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.maximum(x + y, 0.0), mask=mask)


@HOLE("registration: make this function the operator drill::add_relu (a triton_op that mutates no argument)")
def add_relu(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = HOLE("fake: the output, allocated with torch ops only: its shape, dtype and device are the op's fake result")
    n_elements = out.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    HOLE("wrap: launch add_relu_kernel on (x, y, out, n_elements) with BLOCK_SIZE=1024, so tracing can see it")
    return out


def setup_context(ctx, inputs, output):
    x, y = inputs
    ctx.save_for_backward(x, y)


def backward(ctx, grad):
    x, y = ctx.saved_tensors
    return HOLE("autograd: d relu(x + y) / dx and / dy, each times grad (one gradient per input)")


HOLE("autograd: register backward and setup_context as add_relu's autograd formula")


def model(x, y):
    return add_relu(x, y) * 2
