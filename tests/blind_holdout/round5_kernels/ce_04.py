# drill: cross-entropy
import torch
import triton
import triton.language as tl


@triton.jit
def ce_fwd_rows_kernel(x_ptr, y_ptr, lse_ptr, nll_ptr, T, V, stride_t, ignore_index,
                       BLOCK_T: tl.constexpr, BLOCK_V: tl.constexpr):
    # BLOCK_T rows per program, (BLOCK_T, BLOCK_V) tiles, one online max / sum per row
    rows = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    r_ok = rows < T
    y = tl.load(y_ptr + rows, mask=r_ok, other=ignore_index)
    m = tl.full([BLOCK_T], float("-inf"), tl.float32)
    l = tl.zeros([BLOCK_T], dtype=tl.float32)
    xt = tl.zeros([BLOCK_T], dtype=tl.float32)
    for v0 in range(0, V, BLOCK_V):
        cols = v0 + tl.arange(0, BLOCK_V)
        msk = r_ok[:, None] & (cols[None, :] < V)
        x = tl.load(x_ptr + rows[:, None].to(tl.int64) * stride_t + cols[None, :], mask=msk,
                    other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=1))
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # rows past T see only -inf
        l = l * tl.exp(m - m_safe) + tl.sum(tl.exp(x - m_safe[:, None]), axis=1)
        m = m_new
        xt += tl.sum(tl.where(cols[None, :] == y[:, None], x, 0.0), axis=1)  # the target logit, on the way
    lse = m + tl.log(l)
    valid = r_ok & (y != ignore_index)
    tl.store(lse_ptr + rows, lse, mask=r_ok)
    tl.store(nll_ptr + rows, tl.where(valid, lse - xt, 0.0), mask=r_ok)


@triton.jit
def ce_mean_kernel(nll_ptr, y_ptr, out_ptr, cnt_ptr, T, ignore_index, BLOCK: tl.constexpr):
    s = tl.zeros([BLOCK], dtype=tl.float32)
    c = tl.zeros([BLOCK], dtype=tl.float32)
    for t0 in range(0, T, BLOCK):
        offs = t0 + tl.arange(0, BLOCK)
        ok = offs < T
        s += tl.load(nll_ptr + offs, mask=ok, other=0.0)
        c += (tl.load(y_ptr + offs, mask=ok, other=ignore_index) != ignore_index).to(tl.float32)
    cnt = tl.sum(c, axis=0)
    tl.store(cnt_ptr, cnt)
    tl.store(out_ptr, (tl.sum(s, axis=0) / cnt).to(out_ptr.dtype.element_ty))


@triton.jit
def ce_bwd_rows_kernel(x_ptr, y_ptr, lse_ptr, cnt_ptr, go_ptr, dx_ptr, T, V, stride_t, stride_dt, ignore_index,
                       BLOCK_T: tl.constexpr, BLOCK_V: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    pid_v = tl.program_id(1)
    cols = pid_v * BLOCK_V + tl.arange(0, BLOCK_V)
    r_ok = rows < T
    msk = r_ok[:, None] & (cols[None, :] < V)
    y = tl.load(y_ptr + rows, mask=r_ok, other=ignore_index)
    lse = tl.load(lse_ptr + rows, mask=r_ok, other=0.0)
    coef = tl.load(go_ptr).to(tl.float32) / tl.load(cnt_ptr)
    coef_r = tl.where(y != ignore_index, coef, 0.0)
    x = tl.load(x_ptr + rows[:, None].to(tl.int64) * stride_t + cols[None, :], mask=msk, other=0.0).to(tl.float32)
    p = tl.exp(x - lse[:, None])
    g = (p - (cols[None, :] == y[:, None]).to(tl.float32)) * coef_r[:, None]
    tl.store(dx_ptr + rows[:, None].to(tl.int64) * stride_dt + cols[None, :], g.to(dx_ptr.dtype.element_ty), mask=msk)


class FusedCE(torch.autograd.Function):
    BLOCK_T = 4

    @staticmethod
    def forward(ctx, x, y, ignore_index):
        T, V = x.shape
        assert x.stride(1) == 1
        BLOCK_V = min(1024, triton.next_power_of_2(V))
        lse = torch.empty((T,), dtype=torch.float32, device=x.device)
        nll = torch.empty((T,), dtype=torch.float32, device=x.device)
        cnt = torch.empty((1,), dtype=torch.float32, device=x.device)
        out = torch.empty((), dtype=x.dtype, device=x.device)
        ce_fwd_rows_kernel[(triton.cdiv(T, FusedCE.BLOCK_T),)](x, y, lse, nll, T, V, x.stride(0), ignore_index,
                                                               BLOCK_T=FusedCE.BLOCK_T, BLOCK_V=BLOCK_V)
        ce_mean_kernel[(1,)](nll, y, out, cnt, T, ignore_index, BLOCK=1024)
        ctx.save_for_backward(x, y, lse, cnt)
        ctx.ignore_index = ignore_index
        return out

    @staticmethod
    def backward(ctx, go):
        x, y, lse, cnt = ctx.saved_tensors
        T, V = x.shape
        BLOCK_V = min(1024, triton.next_power_of_2(V))
        dx = torch.empty((T, V), dtype=x.dtype, device=x.device)
        grid = (triton.cdiv(T, FusedCE.BLOCK_T), triton.cdiv(V, BLOCK_V))
        ce_bwd_rows_kernel[grid](x, y, lse, cnt, go.contiguous(), dx, T, V, x.stride(0), dx.stride(0), ctx.ignore_index,
                                 BLOCK_T=FusedCE.BLOCK_T, BLOCK_V=BLOCK_V)
        return dx, None, None


def cross_entropy(logits: torch.Tensor, target: torch.Tensor, ignore_index: int = -100) -> torch.Tensor:
    return FusedCE.apply(logits, target, ignore_index)
