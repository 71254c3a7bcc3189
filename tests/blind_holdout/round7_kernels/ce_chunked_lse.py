# drill: cross-entropy
# Unsloth-style chunked cross-entropy (unsloth/kernels/cross_entropy_loss.py): a (rows, chunks) grid where each
# program takes the logsumexp of one vocabulary chunk and chunk 0 also stores -x[label]; the chunk lse are merged
# per row; the backward recomputes softmax from the saved row lse into a fresh gradient, chunk by chunk.
import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536


@triton.jit
def _chunked_cross_entropy_forward(logits_ptr, logits_row_stride, loss_ptr, logsumexp_ptr, labels_ptr,
                                   VOCAB_SIZE, N_CHUNKS, IGNORE_INDEX, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0).to(tl.int64)
    chunk_idx = tl.program_id(1)
    logits_ptr += row_idx * logits_row_stride
    loss_ptr += row_idx
    logsumexp_ptr += row_idx * N_CHUNKS + chunk_idx
    labels_ptr += row_idx

    col_offsets = chunk_idx * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < VOCAB_SIZE
    label_idx = tl.load(labels_ptr).to(tl.int32)
    logits = tl.load(logits_ptr + col_offsets, mask=mask, other=-float("inf")).to(tl.float32)
    c = tl.max(logits, 0)
    logsumexp = c + tl.log(tl.sum(tl.exp(logits - c), 0))

    if chunk_idx == 0:
        if label_idx != IGNORE_INDEX:
            x = tl.load(logits_ptr + label_idx).to(tl.float32)
            loss = -1.0 * x
        else:
            loss = 0.0
        tl.store(loss_ptr, loss)
    tl.store(logsumexp_ptr, logsumexp)


@triton.jit
def _merge_chunks_and_reduce(loss_ptr, logsumexp_ptr, lse_ptr, labels_ptr, out_ptr, n_rows, N_CHUNKS, IGNORE_INDEX,
                             n_valid_ptr, BLOCK_R: tl.constexpr, CHUNKS_P2: tl.constexpr):
    # one program: every row's chunk lse merged into its row lse, then the mean over the rows that count
    total = tl.zeros([BLOCK_R], dtype=tl.float32)
    count = tl.zeros([BLOCK_R], dtype=tl.float32)
    chunks = tl.arange(0, CHUNKS_P2)
    for r0 in range(0, n_rows, BLOCK_R):
        rows = r0 + tl.arange(0, BLOCK_R)
        row_ok = rows < n_rows
        part = tl.load(logsumexp_ptr + rows[:, None] * N_CHUNKS + chunks[None, :],
                       mask=row_ok[:, None] & (chunks[None, :] < N_CHUNKS), other=-float("inf"))
        c = tl.max(part, 1)
        c = tl.where(row_ok, c, 0.0)
        lse = c + tl.log(tl.sum(tl.exp(part - c[:, None]), 1))
        tl.store(lse_ptr + rows, lse, mask=row_ok)
        label = tl.load(labels_ptr + rows, mask=row_ok, other=IGNORE_INDEX)
        valid = row_ok & (label != IGNORE_INDEX)
        loss = tl.load(loss_ptr + rows, mask=row_ok, other=0.0)
        total += tl.where(valid, loss + lse, 0.0)
        count += valid.to(tl.float32)
    n_valid = tl.sum(count, 0)
    tl.store(n_valid_ptr, n_valid)
    tl.store(out_ptr, (tl.sum(total, 0) / n_valid).to(out_ptr.dtype.element_ty))


@triton.jit
def _cross_entropy_backward(logits_ptr, logits_row_stride, dlogits_ptr, dlogits_row_stride, dloss_ptr, n_valid_ptr,
                            logsumexp_ptr, labels_ptr, VOCAB_SIZE, IGNORE_INDEX, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0).to(tl.int64)
    block_idx = tl.program_id(1)
    logits_ptr += row_idx * logits_row_stride
    dlogits_ptr += row_idx * dlogits_row_stride
    col_offsets = block_idx * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < VOCAB_SIZE
    label_idx = tl.load(labels_ptr + row_idx).to(tl.int32)

    if label_idx != IGNORE_INDEX:
        dloss = tl.load(dloss_ptr).to(tl.float32) / tl.load(n_valid_ptr)
    else:
        dloss = 0.0

    x = tl.load(logits_ptr + col_offsets, mask=mask, other=0.0).to(tl.float32)
    logsumexp = tl.load(logsumexp_ptr + row_idx)
    y = tl.exp(x - logsumexp)
    y = tl.where(col_offsets == label_idx, y - 1.0, y)
    tl.store(dlogits_ptr + col_offsets, (dloss * y).to(dlogits_ptr.dtype.element_ty), mask=mask)


class Fast_CrossEntropyLoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, labels, ignore_index):
        n_rows, vocab_size = logits.shape
        BLOCK_SIZE = min(4096, triton.next_power_of_2(vocab_size))
        n_chunks = triton.cdiv(vocab_size, BLOCK_SIZE)
        losses = torch.empty(n_rows, dtype=torch.float32, device=logits.device)
        chunk_lse = torch.empty((n_rows, n_chunks), dtype=torch.float32, device=logits.device)
        logsumexp = torch.empty(n_rows, dtype=torch.float32, device=logits.device)
        n_valid = torch.empty((1,), dtype=torch.float32, device=logits.device)
        out = torch.empty((), dtype=logits.dtype, device=logits.device)
        _chunked_cross_entropy_forward[(n_rows, n_chunks)](logits, logits.stride(0), losses, chunk_lse, labels,
                                                          vocab_size, n_chunks, ignore_index, BLOCK_SIZE=BLOCK_SIZE,
                                                          num_warps=8)
        _merge_chunks_and_reduce[(1,)](losses, chunk_lse, logsumexp, labels, out, n_rows, n_chunks, ignore_index,
                                       n_valid, BLOCK_R=64, CHUNKS_P2=max(2, triton.next_power_of_2(n_chunks)))
        ctx.save_for_backward(logits, logsumexp, labels, n_valid)
        ctx.ignore_index = ignore_index
        ctx.BLOCK_SIZE = BLOCK_SIZE
        return out

    @staticmethod
    def backward(ctx, dlosses):
        logits, logsumexp, labels, n_valid = ctx.saved_tensors
        n_rows, vocab_size = logits.shape
        BLOCK_SIZE = ctx.BLOCK_SIZE
        dlogits = torch.empty_like(logits)
        _cross_entropy_backward[(n_rows, triton.cdiv(vocab_size, BLOCK_SIZE))](
            logits, logits.stride(0), dlogits, dlogits.stride(0), dlosses, n_valid, logsumexp, labels,
            vocab_size, ctx.ignore_index, BLOCK_SIZE=BLOCK_SIZE, num_warps=8)
        return dlogits, None, None


def cross_entropy(logits, target, ignore_index=-100):
    return Fast_CrossEntropyLoss.apply(logits, target, ignore_index)
