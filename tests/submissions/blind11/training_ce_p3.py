# drill: cross-entropy
# expect: pass
# blind round 11 (2026-12-02, seen half): Unsloth chunked cross entropy: (rows, n_chunks) grid of per-chunk logsumexp, a combine kernel for ls
import torch
import triton
import triton.language as tl

CHUNK_SIZE = 2048


@triton.jit
def _chunked_lse_forward(
    logits_ptr, logits_row_stride,
    chunk_lse_ptr, n_chunks,
    VOCAB_SIZE,
    BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0).to(tl.int64)
    chunk_idx = tl.program_id(1)
    logits_ptr += row_idx * logits_row_stride
    col_offsets = chunk_idx * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < VOCAB_SIZE
    logits = tl.load(logits_ptr + col_offsets, mask=mask, other=-float("inf")).to(tl.float32)
    c = tl.max(logits, 0)
    logsumexp = c + tl.log(tl.sum(tl.exp(logits - c), 0))
    tl.store(chunk_lse_ptr + row_idx * n_chunks + chunk_idx, logsumexp)


@triton.jit
def _combine_chunks(
    logits_ptr, logits_row_stride,
    labels_ptr, chunk_lse_ptr, n_chunks,
    lse_ptr, loss_ptr,
    ignore_index,
    BLOCK_C: tl.constexpr,
):
    row_idx = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_C)
    m = tl.full([BLOCK_C], -float("inf"), dtype=tl.float32)
    s = tl.zeros([BLOCK_C], dtype=tl.float32)
    for start in range(0, n_chunks, BLOCK_C):
        c = start + offs
        v = tl.load(chunk_lse_ptr + row_idx * n_chunks + c, mask=c < n_chunks, other=-float("inf"))
        m_new = tl.maximum(m, v)
        safe = tl.where(m_new == -float("inf"), 0.0, m_new)
        s = s * tl.exp(m - safe) + tl.exp(v - safe)
        m = m_new
    m_all = tl.max(m, 0)
    lse = m_all + tl.log(tl.sum(s * tl.exp(m - m_all), 0))
    tl.store(lse_ptr + row_idx, lse)
    label_idx = tl.load(labels_ptr + row_idx)
    if label_idx != ignore_index:
        x = tl.load(logits_ptr + row_idx * logits_row_stride + label_idx).to(tl.float32)
        loss = lse - x
    else:
        loss = 0.0
    tl.store(loss_ptr + row_idx, loss)


@triton.jit
def _mean_over_valid(loss_ptr, labels_ptr, n_rows, ignore_index, out_ptr, n_valid_ptr, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    cnt = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_rows, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        in_range = offs < n_rows
        lab = tl.load(labels_ptr + offs, mask=in_range, other=ignore_index)
        acc += tl.load(loss_ptr + offs, mask=in_range, other=0.0)
        cnt += tl.where(lab != ignore_index, 1.0, 0.0)
    n = tl.sum(cnt, 0)
    tl.store(n_valid_ptr, n)
    tl.store(out_ptr, (tl.sum(acc, 0) / n).to(out_ptr.dtype.element_ty))


@triton.jit
def _chunked_cross_entropy_backward(
    logits_ptr, logits_row_stride,
    grad_ptr, grad_row_stride,
    dloss_ptr, n_valid_ptr,
    labels_ptr, lse_ptr,
    VOCAB_SIZE, ignore_index,
    BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0).to(tl.int64)
    block_idx = tl.program_id(1)
    col_offsets = block_idx * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < VOCAB_SIZE
    label_idx = tl.load(labels_ptr + row_idx)
    grad_ptr += row_idx * grad_row_stride
    if label_idx != ignore_index:
        scale = tl.load(dloss_ptr).to(tl.float32) / tl.load(n_valid_ptr)
        x = tl.load(logits_ptr + row_idx * logits_row_stride + col_offsets, mask=mask, other=0.0).to(tl.float32)
        lse = tl.load(lse_ptr + row_idx)
        y = tl.exp(x - lse)
        y = tl.where(col_offsets == label_idx, y - 1.0, y)
        tl.store(grad_ptr + col_offsets, (y * scale).to(grad_ptr.dtype.element_ty), mask=mask)
    else:
        tl.store(grad_ptr + col_offsets, tl.zeros([BLOCK_SIZE], dtype=tl.float32).to(grad_ptr.dtype.element_ty),
                 mask=mask)


class Fast_CrossEntropyLoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, labels, ignore_index):
        n_rows, vocab_size = logits.shape
        if logits.stride(1) != 1:
            logits = logits.contiguous()
        labels = labels.contiguous()
        BLOCK_SIZE = min(CHUNK_SIZE, triton.next_power_of_2(vocab_size))
        n_chunks = triton.cdiv(vocab_size, BLOCK_SIZE)
        dev = logits.device
        chunk_lse = torch.empty((n_rows, n_chunks), dtype=torch.float32, device=dev)
        lse = torch.empty((n_rows,), dtype=torch.float32, device=dev)
        losses = torch.empty((n_rows,), dtype=torch.float32, device=dev)
        n_valid = torch.empty((1,), dtype=torch.float32, device=dev)
        out = torch.empty((), dtype=logits.dtype, device=dev)
        _chunked_lse_forward[(n_rows, n_chunks)](logits, logits.stride(0), chunk_lse, n_chunks, vocab_size,
                                                 BLOCK_SIZE=BLOCK_SIZE, num_warps=8)
        _combine_chunks[(n_rows,)](logits, logits.stride(0), labels, chunk_lse, n_chunks, lse, losses,
                                   ignore_index, BLOCK_C=min(64, triton.next_power_of_2(n_chunks)))
        _mean_over_valid[(1,)](losses, labels, n_rows, ignore_index, out, n_valid, BLOCK=1024)
        ctx.save_for_backward(logits, labels, lse, n_valid)
        ctx.ignore_index = ignore_index
        ctx.BLOCK_SIZE = BLOCK_SIZE
        return out

    @staticmethod
    def backward(ctx, dloss):
        logits, labels, lse, n_valid = ctx.saved_tensors
        n_rows, vocab_size = logits.shape
        grad = torch.empty_like(logits)
        BLOCK_SIZE = ctx.BLOCK_SIZE
        grid = (n_rows, triton.cdiv(vocab_size, BLOCK_SIZE))
        _chunked_cross_entropy_backward[grid](logits, logits.stride(0), grad, grad.stride(0),
                                              dloss.contiguous(), n_valid, labels, lse,
                                              vocab_size, ctx.ignore_index,
                                              BLOCK_SIZE=BLOCK_SIZE, num_warps=8)
        return grad, None, None


def cross_entropy(logits, target, ignore_index=-100):
    return Fast_CrossEntropyLoss.apply(logits, target, ignore_index)
