import torch
import triton
import triton.language as tl


@triton.jit
def _ln_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    mean_sq = tl.sum(x * x, axis=0) / N
    var = mean_sq - mean * mean
    rstd = 1.0 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    w = tl.load(W + cols, mask=mask, other=0.).to(tl.float32)
    b = tl.load(B + cols, mask=mask, other=0.).to(tl.float32)
    y = (x - mean) * rstd * w + b
    tl.store(Y + row * stride + cols, y.to(Y.dtype.element_ty), mask=mask)


@triton.jit
def _ln_bwd(DX, DY, PartialDW, PartialDB, X, W, Mean, Rstd, stride, M, N, rows_per_program,
            BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    w = tl.load(W + cols, mask=mask, other=0.).to(tl.float32)
    dw = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    db = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    row_start = pid * rows_per_program
    row_end = tl.minimum(row_start + rows_per_program, M)
    for row in range(row_start, row_end):
        x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
        dy = tl.load(DY + row * stride + cols, mask=mask, other=0.).to(tl.float32)
        mean = tl.load(Mean + row)
        rstd = tl.load(Rstd + row)
        xhat = tl.where(mask, (x - mean) * rstd, 0.)
        wdy = w * dy
        c1 = tl.sum(xhat * wdy, axis=0) / N
        c2 = tl.sum(wdy, axis=0) / N
        dx = (wdy - (xhat * c1 + c2)) * rstd
        tl.store(DX + row * stride + cols, dx.to(DX.dtype.element_ty), mask=mask)
        dw += dy * xhat
        db += dy
    tl.store(PartialDW + pid * N + cols, dw, mask=mask)
    tl.store(PartialDB + pid * N + cols, db, mask=mask)


@triton.jit
def _sum_partials(PartialDW, PartialDB, DW, DB, P, N, BLOCK_P: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    acc_w = tl.zeros((BLOCK_P, BLOCK_N), dtype=tl.float32)
    acc_b = tl.zeros((BLOCK_P, BLOCK_N), dtype=tl.float32)
    for i in range(0, P, BLOCK_P):
        rows = i + tl.arange(0, BLOCK_P)
        mask = (rows[:, None] < P) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        acc_w += tl.load(PartialDW + offs, mask=mask, other=0.)
        acc_b += tl.load(PartialDB + offs, mask=mask, other=0.)
    tl.store(DW + cols, tl.sum(acc_w, axis=0).to(DW.dtype.element_ty), mask=cols < N)
    tl.store(DB + cols, tl.sum(acc_b, axis=0).to(DB.dtype.element_ty), mask=cols < N)


class LayerNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        M, N = x.shape
        x = x.contiguous()
        y = torch.empty_like(x)
        mean = torch.empty((M,), dtype=torch.float32, device=x.device)
        rstd = torch.empty((M,), dtype=torch.float32, device=x.device)
        BLOCK_SIZE = triton.next_power_of_2(N)
        num_warps = min(max(BLOCK_SIZE // 1024, 1), 8)
        _ln_fwd[(M,)](x, y, weight, bias, mean, rstd, x.stride(0), N, eps,
                      BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
        ctx.save_for_backward(x, weight, mean, rstd)
        ctx.BLOCK_SIZE = BLOCK_SIZE
        ctx.num_warps = num_warps
        return y

    @staticmethod
    def backward(ctx, dy):
        x, w, mean, rstd = ctx.saved_tensors
        M, N = x.shape
        dy = dy.contiguous()
        if x.device.type == "cuda":
            programs = min(M, torch.cuda.get_device_properties(x.device).multi_processor_count)
        else:
            programs = min(M, 8)
        rows_per_program = triton.cdiv(M, programs)
        programs = triton.cdiv(M, rows_per_program)
        pdw = torch.empty((programs, N), dtype=torch.float32, device=x.device)
        pdb = torch.empty((programs, N), dtype=torch.float32, device=x.device)
        dx = torch.empty_like(x)
        dw = torch.empty((N,), dtype=w.dtype, device=w.device)
        db = torch.empty((N,), dtype=w.dtype, device=w.device)
        _ln_bwd[(programs,)](dx, dy, pdw, pdb, x, w, mean, rstd, x.stride(0), M, N, rows_per_program,
                             BLOCK_SIZE=ctx.BLOCK_SIZE, num_warps=ctx.num_warps)
        BLOCK_N = 64
        _sum_partials[(triton.cdiv(N, BLOCK_N),)](pdw, pdb, dw, db, programs, N, BLOCK_P=32, BLOCK_N=BLOCK_N)
        return dx, dw, db, None


def layernorm(x, weight, bias, eps=1e-5):
    return LayerNorm.apply(x, weight, bias, eps)
