import torch
import triton
import triton.language as tl


@triton.jit
def _ce_lse_tile_kernel(X, Target, LSE, RowLoss, T, V, stride_xt, ignore_index,
                        BLOCK_T: tl.constexpr, BLOCK_V: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_T + tl.arange(0, BLOCK_T)
    rmask = rows < T
    rows64 = rows.to(tl.int64)
    m = tl.full([BLOCK_T, BLOCK_V], float("-inf"), dtype=tl.float32)
    z = tl.zeros([BLOCK_T, BLOCK_V], dtype=tl.float32)
    for v0 in range(0, V, BLOCK_V):
        cols = v0 + tl.arange(0, BLOCK_V)
        mask = rmask[:, None] & (cols[None, :] < V)
        x = tl.load(X + rows64[:, None] * stride_xt + cols[None, :], mask=mask, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        m_ref = tl.where(m_new == float("-inf"), 0.0, m_new)
        z = z * tl.exp(m - m_ref) + tl.exp(x - m_ref)
        m = m_new
    m_row = tl.max(m, axis=1)
    m_row_ref = tl.where(m_row == float("-inf"), 0.0, m_row)
    z_row = tl.sum(z * tl.exp(m - m_row_ref[:, None]), axis=1)
    lse = m_row + tl.log(z_row)
    tgt = tl.load(Target + rows, mask=rmask, other=ignore_index)
    valid = rmask & (tgt != ignore_index)
    x_t = tl.load(X + rows64 * stride_xt + tgt, mask=valid, other=0.0).to(tl.float32)
    tl.store(LSE + rows, lse, mask=rmask)
    tl.store(RowLoss + rows, tl.where(valid, lse - x_t, 0.0), mask=rmask)


@triton.jit
def _ce_mean_kernel(RowLoss, Target, T, ignore_index, Out, NValid, BLOCK: tl.constexpr):
    total = tl.zeros([BLOCK], dtype=tl.float32)
    count = tl.zeros([BLOCK], dtype=tl.float32)
    for t0 in range(0, T, BLOCK):
        offs = t0 + tl.arange(0, BLOCK)
        m = offs < T
        tgt = tl.load(Target + offs, mask=m, other=ignore_index)
        total += tl.load(RowLoss + offs, mask=m, other=0.0)
        count += (tgt != ignore_index).to(tl.float32)
    n = tl.sum(count, axis=0)
    tl.store(NValid, n)
    tl.store(Out, (tl.sum(total, axis=0) / n).to(Out.dtype.element_ty))


@triton.jit
def _ce_grad_tile_kernel(X, Target, LSE, NValid, DLoss, DX, T, V, stride_xt, stride_dt, ignore_index,
                         BLOCK_T: tl.constexpr, BLOCK_V: tl.constexpr):
    pid_t = tl.program_id(0)
    pid_v = tl.program_id(1)
    rows = pid_t * BLOCK_T + tl.arange(0, BLOCK_T)
    cols = pid_v * BLOCK_V + tl.arange(0, BLOCK_V)
    rmask = rows < T
    mask = rmask[:, None] & (cols[None, :] < V)
    rows64 = rows.to(tl.int64)
    tgt = tl.load(Target + rows, mask=rmask, other=ignore_index)
    valid = tgt != ignore_index
    lse = tl.load(LSE + rows, mask=rmask, other=0.0)
    scale = tl.load(DLoss).to(tl.float32) / tl.load(NValid)
    x = tl.load(X + rows64[:, None] * stride_xt + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    p = tl.exp(x - lse[:, None])
    onehot = (cols[None, :] == tgt[:, None]).to(tl.float32)
    g = tl.where(valid[:, None], (p - onehot) * scale, 0.0)
    tl.store(DX + rows64[:, None] * stride_dt + cols[None, :], g.to(DX.dtype.element_ty), mask=mask)


def _tiles(V):
    BLOCK_V = min(1024, triton.next_power_of_2(V))
    BLOCK_T = 4
    return BLOCK_T, BLOCK_V


class TiledCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target, ignore_index):
        T, V = logits.shape
        if logits.stride(1) != 1:
            logits = logits.contiguous()
        target = target.contiguous()
        dev = logits.device
        BLOCK_T, BLOCK_V = _tiles(V)
        lse = torch.empty((T,), dtype=torch.float32, device=dev)
        row_loss = torch.empty((T,), dtype=torch.float32, device=dev)
        n_valid = torch.empty((1,), dtype=torch.float32, device=dev)
        out = torch.empty((), dtype=logits.dtype, device=dev)
        _ce_lse_tile_kernel[(triton.cdiv(T, BLOCK_T),)](logits, target, lse, row_loss, T, V, logits.stride(0),
                                                        ignore_index, BLOCK_T=BLOCK_T, BLOCK_V=BLOCK_V,
                                                        num_warps=4)
        _ce_mean_kernel[(1,)](row_loss, target, T, ignore_index, out, n_valid, BLOCK=1024)
        ctx.save_for_backward(logits, target, lse, n_valid)
        ctx.ignore_index = ignore_index
        return out

    @staticmethod
    def backward(ctx, dloss):
        logits, target, lse, n_valid = ctx.saved_tensors
        T, V = logits.shape
        BLOCK_T, BLOCK_V = _tiles(V)
        dx = torch.empty_like(logits)
        grid = (triton.cdiv(T, BLOCK_T), triton.cdiv(V, BLOCK_V))
        _ce_grad_tile_kernel[grid](logits, target, lse, n_valid, dloss.contiguous(), dx, T, V,
                                   logits.stride(0), dx.stride(0), ctx.ignore_index,
                                   BLOCK_T=BLOCK_T, BLOCK_V=BLOCK_V, num_warps=4)
        return dx, None, None


def cross_entropy(logits, target, ignore_index=-100):
    return TiledCrossEntropy.apply(logits, target, ignore_index)
