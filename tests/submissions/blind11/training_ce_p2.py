# drill: cross-entropy
# expect: pass
# blind round 11 (2026-12-02, seen half): Liger-Kernel cross_entropy: program_id(0).to(int64), early return zeroing ignored rows, online m/d, 
import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536 // 2


@triton.jit
def liger_style_cross_entropy_kernel(
    X_ptr, X_stride,
    Y_ptr, Y_stride,
    loss_ptr, loss_stride,
    n_cols,
    n_non_ignore_ptr,
    ignore_index,
    BLOCK_SIZE: tl.constexpr,
):
    program_id = tl.program_id(0).to(tl.int64)

    Y_ptr += program_id * Y_stride
    y = tl.load(Y_ptr)

    X_ptr += program_id * X_stride

    if y == ignore_index:
        for i in range(0, n_cols, BLOCK_SIZE):
            X_offsets = i + tl.arange(0, BLOCK_SIZE)
            tl.store(X_ptr + X_offsets, 0.0, mask=X_offsets < n_cols)
        return

    loss_ptr += program_id * loss_stride
    n_non_ignore = tl.load(n_non_ignore_ptr).to(tl.float32)

    # online softmax pass: running max m and normaliser d
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

    # gradient pass, written over the logits
    for i in range(0, n_cols, BLOCK_SIZE):
        X_offsets = i + tl.arange(0, BLOCK_SIZE)
        X_block = tl.load(X_ptr + X_offsets, mask=X_offsets < n_cols, other=float("-inf")).cast(tl.float32)
        X_block = (tl.exp(X_block - m) / d) / n_non_ignore
        X_block = tl.where(X_offsets == y, X_block - 1.0 / n_non_ignore, X_block)
        tl.store(X_ptr + X_offsets, X_block.to(X_ptr.dtype.element_ty), mask=X_offsets < n_cols)

    loss = -(ori_X_y - m - tl.log(d))
    tl.store(loss_ptr, loss)


@triton.jit
def _count_non_ignore_kernel(Y_ptr, n_rows, ignore_index, out_ptr, BLOCK: tl.constexpr):
    total = tl.zeros([BLOCK], dtype=tl.int32)
    for start in range(0, n_rows, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        y = tl.load(Y_ptr + offs, mask=offs < n_rows, other=ignore_index)
        total += tl.where(y != ignore_index, 1, 0)
    tl.store(out_ptr, tl.sum(total, axis=0))


@triton.jit
def _reduce_loss_kernel(loss_ptr, n_rows, n_non_ignore_ptr, out_ptr, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_rows, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(loss_ptr + offs, mask=offs < n_rows, other=0.0)
    n = tl.load(n_non_ignore_ptr).to(tl.float32)
    tl.store(out_ptr, (tl.sum(acc, axis=0) / n).to(out_ptr.dtype.element_ty))


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
    loss_1d = torch.zeros(n_rows, dtype=torch.float32, device=_input.device)
    n_non_ignore = torch.empty((), dtype=torch.int32, device=_input.device)

    if _input.stride(-1) != 1:
        _input = _input.contiguous()
    if target.stride(-1) != 1:
        target = target.contiguous()

    _count_non_ignore_kernel[(1,)](target, n_rows, ignore_index, n_non_ignore, BLOCK=1024)
    liger_style_cross_entropy_kernel[(n_rows,)](
        X_ptr=_input, X_stride=_input.stride(-2),
        Y_ptr=target, Y_stride=target.stride(-1),
        loss_ptr=loss_1d, loss_stride=loss_1d.stride(-1),
        n_cols=V, n_non_ignore_ptr=n_non_ignore, ignore_index=ignore_index,
        BLOCK_SIZE=BLOCK_SIZE, num_warps=32 if _input.is_cuda else 4,
    )
    loss = torch.empty((), dtype=_input.dtype, device=_input.device)
    _reduce_loss_kernel[(1,)](loss_1d, n_rows, n_non_ignore, loss, BLOCK=1024)
    return loss, _input


def cross_entropy_backward(_input, grad_output):
    BT, V = _input.shape
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))
    element_mul_kernel[(BT,)](
        _input, _input.stride(-2), grad_output.contiguous(), V,
        BLOCK_SIZE=BLOCK_SIZE, num_warps=32 if _input.is_cuda else 4,
    )
    return _input


class LigerStyleCrossEntropyFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, _input, target, ignore_index):
        loss, _input = cross_entropy_forward(_input, target, ignore_index)
        ctx.save_for_backward(_input.detach())
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        (_input,) = ctx.saved_tensors
        _input = cross_entropy_backward(_input, grad_output)
        return _input, None, None


def cross_entropy(logits, target, ignore_index=-100):
    return LigerStyleCrossEntropyFunction.apply(logits, target, ignore_index)
