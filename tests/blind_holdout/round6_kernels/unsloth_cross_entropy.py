# drill: cross-entropy
# Unsloth style cross-entropy: the whole vocab row in one block, logsumexp saved per row, the gradient recomputed
# in the backward and written over the logits (program_id(1) walks vocab blocks).
import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536


def calculate_settings(n):
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(f"Cannot launch Triton kernel since n = {n} exceeds the maximum CUDA blocksize = {MAX_FUSED_SIZE}.")
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


@triton.jit
def _cross_entropy_forward(
    logits_ptr, logits_row_stride, loss_ptr, logsumexp_ptr, labels_ptr, VOCAB_SIZE, ignore_index,
    BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0)
    logits_ptr += row_idx * tl.cast(logits_row_stride, tl.int64)
    loss_ptr += row_idx
    logsumexp_ptr += row_idx
    labels_ptr += row_idx

    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < VOCAB_SIZE

    label_idx = tl.load(labels_ptr).to(tl.int32)
    logits = tl.load(logits_ptr + col_offsets, mask=mask, other=-float("inf")).to(tl.float32)

    c = tl.max(logits, 0)
    logsumexp = c + tl.log(tl.sum(tl.exp(logits - c), 0))

    if label_idx != ignore_index:
        x = tl.load(logits_ptr + label_idx).to(tl.float32)
        loss = logsumexp - x
    else:
        loss = 0.0
    tl.store(logsumexp_ptr, logsumexp)
    tl.store(loss_ptr, loss)


@triton.jit
def _mean_kernel(loss_ptr, out_ptr, n_rows, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_rows, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(loss_ptr + offs, mask=offs < n_rows, other=0.0)
    tl.store(out_ptr, (tl.sum(acc, axis=0) / n_rows).to(out_ptr.dtype.element_ty))


@triton.jit
def _cross_entropy_backward(
    logits_ptr, logits_row_stride, dloss_ptr, logsumexp_ptr, labels_ptr, VOCAB_SIZE, n_rows, ignore_index,
    BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0)
    block_idx = tl.program_id(1)

    logits_ptr += row_idx * tl.cast(logits_row_stride, tl.int64)
    col_offsets = block_idx * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < VOCAB_SIZE
    label_idx = tl.load(labels_ptr + row_idx).to(tl.int32)

    if label_idx != ignore_index:
        dloss = tl.load(dloss_ptr).to(tl.float32) / n_rows
    else:
        dloss = 0.0

    x = tl.load(logits_ptr + col_offsets, mask=mask, other=-float("inf")).to(tl.float32)
    logsumexp = tl.load(logsumexp_ptr + row_idx)
    y = tl.exp(x - logsumexp)
    y = tl.where(col_offsets == label_idx, y - 1.0, y)
    tl.store(logits_ptr + col_offsets, (dloss * y).to(logits_ptr.dtype.element_ty), mask=mask)


class Fast_CrossEntropyLoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, labels, ignore_index=-100):
        n_rows, vocab_size = logits.shape
        BLOCK_SIZE, num_warps = calculate_settings(vocab_size)
        losses = torch.empty(n_rows, dtype=torch.float32, device=logits.device)
        logsumexp = torch.empty(n_rows, dtype=torch.float32, device=logits.device)
        _cross_entropy_forward[(n_rows,)](
            logits, logits.stride(0), losses, logsumexp, labels, VOCAB_SIZE=vocab_size, ignore_index=ignore_index,
            BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
        loss = torch.empty((), dtype=logits.dtype, device=logits.device)
        _mean_kernel[(1,)](losses, loss, n_rows, BLOCK=1024)
        ctx.save_for_backward(logits, logsumexp, labels)
        ctx.ignore_index = ignore_index
        return loss

    @staticmethod
    def backward(ctx, dlosses):
        logits, logsumexp, labels = ctx.saved_tensors
        n_rows, vocab_size = logits.shape
        BLOCK_SIZE = 4096
        div = triton.cdiv(vocab_size, BLOCK_SIZE)
        _cross_entropy_backward[(n_rows, div)](
            logits, logits.stride(0), dlosses, logsumexp, labels, VOCAB_SIZE=vocab_size, n_rows=n_rows,
            ignore_index=ctx.ignore_index, BLOCK_SIZE=BLOCK_SIZE, num_warps=8)
        return logits, None, None


def cross_entropy(logits: torch.Tensor, target: torch.Tensor, ignore_index: int = -100) -> torch.Tensor:
    return Fast_CrossEntropyLoss.apply(logits, target, ignore_index)
