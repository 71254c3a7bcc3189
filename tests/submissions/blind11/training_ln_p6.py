# drill: layernorm
# expect: pass
# blind round 11 (2026-12-02, seen half): persistent grid (min(tiles, SMs) programs) over 2-D (BLOCK_M rows x BLOCK_N) tiles in forward and ba
import torch
import triton
import triton.language as tl


@triton.jit
def _ln_fwd_tiles(X, Y, W, B, MEAN, RSTD, M, N, stride_xm, stride_ym, eps,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    cols = tl.arange(0, BLOCK_N)
    cmask = cols < N
    w = tl.load(W + cols, mask=cmask, other=0.0).to(tl.float32)
    b = tl.load(B + cols, mask=cmask, other=0.0).to(tl.float32)
    num_tiles = tl.cdiv(M, BLOCK_M)
    for tile in range(pid, num_tiles, nprog):
        rows = tile * BLOCK_M + tl.arange(0, BLOCK_M)
        rmask = rows < M
        mask = rmask[:, None] & cmask[None, :]
        rows64 = rows.to(tl.int64)
        x = tl.load(X + rows64[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0).to(tl.float32)
        mean = tl.sum(x, axis=1) / N
        xc = tl.where(mask, x - mean[:, None], 0.0)
        var = tl.sum(xc * xc, axis=1) / N
        rstd = 1.0 / tl.sqrt(var + eps)
        y = xc * rstd[:, None] * w[None, :] + b[None, :]
        tl.store(Y + rows64[:, None] * stride_ym + cols[None, :], y.to(Y.dtype.element_ty), mask=mask)
        tl.store(MEAN + rows, mean, mask=rmask)
        tl.store(RSTD + rows, rstd, mask=rmask)


@triton.jit
def _ln_bwd_tiles(X, DY, DX, W, MEAN, RSTD, PDW, PDB, M, N, stride_xm, stride_dym, stride_dxm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    cols = tl.arange(0, BLOCK_N)
    cmask = cols < N
    w = tl.load(W + cols, mask=cmask, other=0.0).to(tl.float32)
    dw = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    num_tiles = tl.cdiv(M, BLOCK_M)
    for tile in range(pid, num_tiles, nprog):
        rows = tile * BLOCK_M + tl.arange(0, BLOCK_M)
        rmask = rows < M
        mask = rmask[:, None] & cmask[None, :]
        rows64 = rows.to(tl.int64)
        x = tl.load(X + rows64[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(DY + rows64[:, None] * stride_dym + cols[None, :], mask=mask, other=0.0).to(tl.float32)
        mean = tl.load(MEAN + rows, mask=rmask, other=0.0)
        rstd = tl.load(RSTD + rows, mask=rmask, other=0.0)
        xhat = tl.where(mask, (x - mean[:, None]) * rstd[:, None], 0.0)
        wdy = dy * w[None, :]
        c1 = tl.sum(xhat * wdy, axis=1) / N
        c2 = tl.sum(wdy, axis=1) / N
        dx = (wdy - xhat * c1[:, None] - c2[:, None]) * rstd[:, None]
        tl.store(DX + rows64[:, None] * stride_dxm + cols[None, :], dx.to(DX.dtype.element_ty), mask=mask)
        dw += dy * xhat
        db += dy
    tl.store(PDW + pid * N + cols, tl.sum(dw, axis=0), mask=cmask)
    tl.store(PDB + pid * N + cols, tl.sum(db, axis=0), mask=cmask)


@triton.jit
def _reduce_partials(PDW, PDB, DW, DB, P, N, BLOCK_P: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    sw = tl.zeros((BLOCK_N,), dtype=tl.float32)
    sb = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for p0 in range(0, P, BLOCK_P):
        ps = p0 + tl.arange(0, BLOCK_P)
        m = (ps[:, None] < P) & cmask[None, :]
        o = ps[:, None] * N + cols[None, :]
        sw += tl.sum(tl.load(PDW + o, mask=m, other=0.0), axis=0)
        sb += tl.sum(tl.load(PDB + o, mask=m, other=0.0), axis=0)
    tl.store(DW + cols, sw.to(DW.dtype.element_ty), mask=cmask)
    tl.store(DB + cols, sb.to(DB.dtype.element_ty), mask=cmask)


def _launch_config(M, N, device):
    BLOCK_N = triton.next_power_of_2(N)
    BLOCK_M = max(1, min(16, 4096 // BLOCK_N))
    num_tiles = triton.cdiv(M, BLOCK_M)
    if device.type == "cuda":
        sms = torch.cuda.get_device_properties(device).multi_processor_count
    else:
        sms = 4
    grid = max(1, min(num_tiles, sms))
    num_warps = 8 if BLOCK_M * BLOCK_N >= 4096 else 4
    return BLOCK_M, BLOCK_N, grid, num_warps


class PersistentLayerNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        M, N = x.shape
        if x.stride(1) != 1:
            x = x.contiguous()
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        mean = torch.empty((M,), dtype=torch.float32, device=x.device)
        rstd = torch.empty((M,), dtype=torch.float32, device=x.device)
        BLOCK_M, BLOCK_N, grid, nw = _launch_config(M, N, x.device)
        _ln_fwd_tiles[(grid,)](x, y, weight, bias, mean, rstd, M, N, x.stride(0), y.stride(0), eps,
                               BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=nw)
        ctx.save_for_backward(x, weight, mean, rstd)
        return y

    @staticmethod
    def backward(ctx, dy):
        x, weight, mean, rstd = ctx.saved_tensors
        M, N = x.shape
        if dy.stride(1) != 1:
            dy = dy.contiguous()
        BLOCK_M, BLOCK_N, grid, nw = _launch_config(M, N, x.device)
        dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
        pdw = torch.empty((grid, N), dtype=torch.float32, device=x.device)
        pdb = torch.empty((grid, N), dtype=torch.float32, device=x.device)
        _ln_bwd_tiles[(grid,)](x, dy, dx, weight, mean, rstd, pdw, pdb, M, N,
                               x.stride(0), dy.stride(0), dx.stride(0),
                               BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=nw)
        dw = torch.empty((N,), dtype=weight.dtype, device=weight.device)
        db = torch.empty((N,), dtype=weight.dtype, device=weight.device)
        RB = 128
        _reduce_partials[(triton.cdiv(N, RB),)](pdw, pdb, dw, db, grid, N, BLOCK_P=8, BLOCK_N=RB)
        return dx, dw, db, None


def layernorm(x, weight, bias, eps=1e-5):
    return PersistentLayerNorm.apply(x, weight, bias, eps)
