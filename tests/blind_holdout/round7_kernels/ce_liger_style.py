# drill: cross-entropy
# Cross-entropy in the style of Liger-Kernel's ops/cross_entropy.py: one program per row, an online softmax over
# BLOCK_SIZE column blocks, the gradient written in place over the logits in the forward, reduction as a
# constexpr string, and an element_mul kernel for grad_output in the backward. n_non_ignore stays on the device.
import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536 // 2


@triton.jit
def count_non_ignore_kernel(Y_ptr, n_rows, ignore_index, N_ptr, BLOCK: tl.constexpr):
    total = tl.zeros([BLOCK], dtype=tl.int32)
    for i in range(0, n_rows, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        y = tl.load(Y_ptr + offs, mask=offs < n_rows, other=ignore_index)
        total += (y != ignore_index).to(tl.int32)
    tl.store(N_ptr, tl.sum(total, axis=0).to(tl.float32))


@triton.jit
def liger_cross_entropy_kernel(X_ptr, X_stride, Y_ptr, Y_stride, loss_ptr, loss_stride, n_cols, N_ptr,
                               ignore_index, reduction: tl.constexpr, BLOCK_SIZE: tl.constexpr):
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

    n_non_ignore = tl.load(N_ptr)
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
        if reduction == "mean":
            X_block = X_block / n_non_ignore
        tl.store(X_ptr + X_offsets, X_block.to(X_ptr.dtype.element_ty), mask=X_offsets < n_cols)

    tl.debug_barrier()

    loss = lse - ori_X_y
    if reduction == "mean":
        loss = loss / n_non_ignore

    X_y = tl.load(X_ptr + y).cast(tl.float32)
    if reduction == "mean":
        X_y += -1 / n_non_ignore
    else:
        X_y += -1

    tl.store(loss_ptr, loss)
    tl.store(X_ptr + y, X_y.to(X_ptr.dtype.element_ty))


@triton.jit
def sum_loss_kernel(loss_ptr, n_rows, N_ptr, out_ptr, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, n_rows, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        acc += tl.load(loss_ptr + offs, mask=offs < n_rows, other=0.0)
    n_non_ignore = tl.load(N_ptr)
    total = tl.where(n_non_ignore > 0, tl.sum(acc, axis=0), float("nan"))  # all ignored: 0 / 0, as F.cross_entropy
    tl.store(out_ptr, total.to(out_ptr.dtype.element_ty))


@triton.jit
def element_mul_kernel(X_ptr, X_stride, grad_output_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    program_id = tl.program_id(0).to(tl.int64)
    X_ptr += program_id * X_stride
    grad_output = tl.load(grad_output_ptr).to(tl.float32)
    for i in range(0, n_cols, BLOCK_SIZE):
        X_offsets = i + tl.arange(0, BLOCK_SIZE)
        X_block = tl.load(X_ptr + X_offsets, mask=X_offsets < n_cols).to(tl.float32)
        tl.store(X_ptr + X_offsets, (X_block * grad_output).to(X_ptr.dtype.element_ty), mask=X_offsets < n_cols)


def cross_entropy_forward(_input, target, ignore_index, reduction="mean"):
    BT, V = _input.shape
    n_rows = BT
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))
    loss_1d = torch.empty(n_rows, dtype=torch.float32, device=_input.device)
    n_non_ignore = torch.empty((1,), dtype=torch.float32, device=_input.device)
    if _input.stride(-1) != 1:
        _input = _input.contiguous()
    if target.stride(-1) != 1:
        target = target.contiguous()
    count_non_ignore_kernel[(1,)](target, n_rows, ignore_index, n_non_ignore, BLOCK=1024)
    liger_cross_entropy_kernel[(n_rows,)](_input, _input.stride(-2), target, target.stride(-1), loss_1d,
                                          loss_1d.stride(-1), V, n_non_ignore, ignore_index, reduction=reduction,
                                          BLOCK_SIZE=BLOCK_SIZE, num_warps=32 if BLOCK_SIZE >= 32768 else 8)
    loss = torch.empty((), dtype=_input.dtype, device=_input.device)
    sum_loss_kernel[(1,)](loss_1d, n_rows, n_non_ignore, loss, BLOCK=1024)
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
        BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))
        element_mul_kernel[(BT,)](_input, _input.stride(-2), grad_output, V, BLOCK_SIZE=BLOCK_SIZE,
                                  num_warps=32 if BLOCK_SIZE >= 32768 else 8)
        return _input, None, None


def cross_entropy(logits, target, ignore_index=-100):
    return LigerCrossEntropyFunction.apply(logits, target, ignore_index)
