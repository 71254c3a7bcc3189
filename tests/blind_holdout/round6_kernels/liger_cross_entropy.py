# drill: cross-entropy
# Liger-Kernel style fused cross-entropy: one program per row, online softmax over vocab blocks, the gradient
# written over the logits in the forward (early return for ignored rows), element_mul in the backward.
import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536 // 2


@triton.jit
def _count_non_ignore_kernel(Y_ptr, Out_ptr, n_rows, ignore_index, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.int32)
    for start in range(0, n_rows, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        y = tl.load(Y_ptr + offs, mask=offs < n_rows, other=ignore_index)
        acc += (y != ignore_index).to(tl.int32)
    tl.store(Out_ptr, tl.sum(acc, axis=0).to(tl.float32))


@triton.jit
def liger_cross_entropy_kernel(
    X_ptr, X_stride, Y_ptr, Y_stride, loss_ptr, loss_stride, n_cols, n_non_ignore_ptr, ignore_index,
    BLOCK_SIZE: tl.constexpr,
):
    program_id = tl.program_id(0).to(tl.int64)
    Y_ptr += program_id * Y_stride
    y = tl.load(Y_ptr)
    X_ptr += program_id * X_stride
    loss_ptr += program_id * loss_stride

    if y == ignore_index:
        for i in range(0, n_cols, BLOCK_SIZE):
            X_offsets = i + tl.arange(0, BLOCK_SIZE)
            tl.store(X_ptr + X_offsets, 0.0, mask=X_offsets < n_cols)
        tl.store(loss_ptr, 0.0)
        return

    n_non_ignore = tl.load(n_non_ignore_ptr)
    m = float("-inf")
    d = 0.0
    ori_X_y = tl.load(X_ptr + y).cast(tl.float32)

    for i in range(0, n_cols, BLOCK_SIZE):
        X_offsets = i + tl.arange(0, BLOCK_SIZE)
        X_block = tl.load(X_ptr + X_offsets, mask=X_offsets < n_cols, other=float("-inf")).cast(tl.float32)
        block_max = tl.max(X_block)
        m_new = tl.maximum(m, block_max)
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(X_block - m_new))
        m = m_new

    lse = m + tl.log(d)

    for i in range(0, n_cols, BLOCK_SIZE):
        X_offsets = i + tl.arange(0, BLOCK_SIZE)
        X_block = tl.load(X_ptr + X_offsets, mask=X_offsets < n_cols, other=float("-inf")).cast(tl.float32)
        X_block = tl.exp(X_block - m) / d
        X_block = tl.where(X_offsets == y, X_block - 1.0, X_block) / n_non_ignore
        tl.store(X_ptr + X_offsets, X_block.to(X_ptr.dtype.element_ty), mask=X_offsets < n_cols)

    loss = lse - ori_X_y
    tl.store(loss_ptr, loss)


@triton.jit
def _mean_loss_kernel(L_ptr, n_ptr, Out_ptr, n_rows, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_rows, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(L_ptr + offs, mask=offs < n_rows, other=0.0)
    tl.store(Out_ptr, (tl.sum(acc, axis=0) / tl.load(n_ptr)).to(Out_ptr.dtype.element_ty))


@triton.jit
def element_mul_kernel(X_ptr, X_stride, grad_output_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    program_id = tl.program_id(0).to(tl.int64)
    X_ptr += program_id * X_stride
    grad_output = tl.load(grad_output_ptr).to(tl.float32)
    for i in range(0, n_cols, BLOCK_SIZE):
        X_offsets = i + tl.arange(0, BLOCK_SIZE)
        X_block = tl.load(X_ptr + X_offsets, mask=X_offsets < n_cols).to(tl.float32)
        tl.store(X_ptr + X_offsets, (X_block * grad_output).to(X_ptr.dtype.element_ty), mask=X_offsets < n_cols)


def cross_entropy_forward(_input, target, ignore_index):
    BT, V = _input.shape
    n_rows = BT
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))
    loss_1d = torch.empty(n_rows, dtype=torch.float32, device=_input.device)
    n_non_ignore = torch.empty((1,), dtype=torch.float32, device=_input.device)
    _count_non_ignore_kernel[(1,)](target, n_non_ignore, n_rows, ignore_index, BLOCK=1024)
    if _input.stride(-1) != 1:
        _input = _input.contiguous()
    if target.stride(-1) != 1:
        target = target.contiguous()
    liger_cross_entropy_kernel[(n_rows,)](
        X_ptr=_input, X_stride=_input.stride(-2), Y_ptr=target, Y_stride=target.stride(-1),
        loss_ptr=loss_1d, loss_stride=loss_1d.stride(-1), n_cols=V, n_non_ignore_ptr=n_non_ignore,
        ignore_index=ignore_index, BLOCK_SIZE=BLOCK_SIZE, num_warps=32 if _input.device.type == "cuda" else 4,
    )
    loss = torch.empty((), dtype=_input.dtype, device=_input.device)
    _mean_loss_kernel[(1,)](loss_1d, n_non_ignore, loss, n_rows, BLOCK=1024)
    return loss, _input


class LigerCrossEntropyFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, _input, target, ignore_index=-100):
        loss, _input = cross_entropy_forward(_input, target, ignore_index)
        ctx.save_for_backward(_input.detach())
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        (_input,) = ctx.saved_tensors
        BT, V = _input.shape
        if not torch.equal(grad_output, torch.tensor(1.0, device=grad_output.device)):
            BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))
            element_mul_kernel[(BT,)](_input, _input.stride(-2), grad_output, V, BLOCK_SIZE=BLOCK_SIZE,
                                      num_warps=32 if _input.device.type == "cuda" else 4)
        return _input, None, None


def cross_entropy(logits: torch.Tensor, target: torch.Tensor, ignore_index: int = -100) -> torch.Tensor:
    return LigerCrossEntropyFunction.apply(logits, target, ignore_index)
