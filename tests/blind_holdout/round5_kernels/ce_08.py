# drill: cross-entropy
import torch
import triton
import triton.language as tl


@triton.jit
def count_valid_kernel(Y_ptr, n_valid_ptr, n_rows, ignore_index, BLOCK: tl.constexpr):
    cnt = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, n_rows, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        y = tl.load(Y_ptr + offs, mask=offs < n_rows, other=ignore_index)
        cnt += (y != ignore_index).to(tl.float32)
    tl.store(n_valid_ptr, tl.sum(cnt, axis=0))


@triton.jit
def liger_cross_entropy_kernel(X_ptr, X_stride, Y_ptr, loss_ptr, n_valid_ptr, n_cols, ignore_index,
                               BLOCK_SIZE: tl.constexpr):
    # Liger: the forward writes the gradient d loss / d X into X itself, so backward needs no (T, V) buffer
    program_id = tl.program_id(0).to(tl.int64)
    y = tl.load(Y_ptr + program_id)
    X_ptr += program_id * X_stride
    if y == ignore_index:
        for i in range(0, n_cols, BLOCK_SIZE):
            X_offsets = i + tl.arange(0, BLOCK_SIZE)
            tl.store(X_ptr + X_offsets, 0.0, mask=X_offsets < n_cols)
        tl.store(loss_ptr + program_id, 0.0)
    else:
        n_non_ignore = tl.load(n_valid_ptr)
        m = float("-inf")
        d = 0.0
        ori_X_y = tl.load(X_ptr + y).to(tl.float32)
        # online softmax: running max m and running sum d of exp(x - m)
        for i in range(0, n_cols, BLOCK_SIZE):
            X_offsets = i + tl.arange(0, BLOCK_SIZE)
            X_block = tl.load(X_ptr + X_offsets, mask=X_offsets < n_cols, other=float("-inf")).to(tl.float32)
            block_max = tl.max(X_block)
            m_new = tl.maximum(m, block_max)
            d = d * tl.exp(m - m_new) + tl.sum(tl.exp(X_block - m_new))
            m = m_new
        lse = m + tl.log(d)
        for i in range(0, n_cols, BLOCK_SIZE):
            X_offsets = i + tl.arange(0, BLOCK_SIZE)
            X_block = tl.load(X_ptr + X_offsets, mask=X_offsets < n_cols, other=float("-inf")).to(tl.float32)
            X_block = tl.exp(X_block - m) / d
            X_block = tl.where(X_offsets == y, X_block - 1.0, X_block)
            tl.store(X_ptr + X_offsets, X_block.to(X_ptr.dtype.element_ty), mask=X_offsets < n_cols)
        tl.store(loss_ptr + program_id, lse - ori_X_y)


@triton.jit
def mean_loss_kernel(loss_rows_ptr, n_valid_ptr, out_ptr, n_rows, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, n_rows, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        acc += tl.load(loss_rows_ptr + offs, mask=offs < n_rows, other=0.0)
    total = tl.sum(acc, axis=0)
    tl.store(out_ptr, (total / tl.load(n_valid_ptr)).to(out_ptr.dtype.element_ty))  # 0 / 0 = nan, like torch


@triton.jit
def element_mul_kernel(X_ptr, X_stride, grad_output_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    program_id = tl.program_id(0).to(tl.int64)
    X_ptr += program_id * X_stride
    grad_output = tl.load(grad_output_ptr).to(tl.float32)
    for i in range(0, n_cols, BLOCK_SIZE):
        X_offsets = i + tl.arange(0, BLOCK_SIZE)
        X_block = tl.load(X_ptr + X_offsets, mask=X_offsets < n_cols).to(tl.float32)
        tl.store(X_ptr + X_offsets, (X_block * grad_output).to(X_ptr.dtype.element_ty), mask=X_offsets < n_cols)


class LigerCrossEntropyFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, _input, target, ignore_index):
        BT, V = _input.shape
        assert _input.stride(1) == 1
        BLOCK_SIZE = min(32768, triton.next_power_of_2(V))
        target = target.contiguous()
        loss_1d = torch.empty(BT, dtype=torch.float32, device=_input.device)
        n_valid = torch.empty(1, dtype=torch.float32, device=_input.device)
        loss = torch.empty((), dtype=_input.dtype, device=_input.device)
        count_valid_kernel[(1,)](target, n_valid, BT, ignore_index, BLOCK=1024)
        liger_cross_entropy_kernel[(BT,)](_input, _input.stride(0), target, loss_1d, n_valid, V, ignore_index,
                                          BLOCK_SIZE=BLOCK_SIZE, num_warps=32 if BLOCK_SIZE >= 8192 else 8)
        mean_loss_kernel[(1,)](loss_1d, n_valid, loss, BT, BLOCK=1024)
        ctx.save_for_backward(_input.detach())
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        (_input,) = ctx.saved_tensors
        BT, V = _input.shape
        BLOCK_SIZE = min(32768, triton.next_power_of_2(V))
        grad_output = grad_output.contiguous()
        element_mul_kernel[(BT,)](_input, _input.stride(0), grad_output, V, BLOCK_SIZE=BLOCK_SIZE,
                                  num_warps=32 if BLOCK_SIZE >= 8192 else 8)
        return _input, None, None


def cross_entropy(logits: torch.Tensor, target: torch.Tensor, ignore_index: int = -100) -> torch.Tensor:
    return LigerCrossEntropyFunction.apply(logits, target, ignore_index)
