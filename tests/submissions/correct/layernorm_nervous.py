# drill: layernorm
# expect: pass
"""A nervous candidate: asserts everywhere, .contiguous() on everything, fixed blocks with loops over N in both
kernels (three passes in the forward, two per row in the backward), int64 row offsets, mean and rstd saved as
float32; one partial row per program of BLOCK_M rows (only that program touches it) and a second kernel that sums
them, all in float32, cast at the very end."""
import torch
import triton
import triton.language as tl

BLOCK_N = 1024
BLOCK_M = 16  # rows per backward program


@triton.jit
def fwd_kernel(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, N, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * N
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        acc += tl.load(x_ptr + base + cols, mask=cols < N, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N
    acc2 = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + base + cols, mask=cols < N, other=0.0).to(tl.float32)
        d = tl.where(cols < N, x - mean, 0.0)
        acc2 += d * d
    var = tl.sum(acc2, axis=0) / N
    rstd = 1.0 / tl.sqrt(var + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        m = cols < N
        x = tl.load(x_ptr + base + cols, mask=m, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=m, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=m, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_ptr + base + cols, y.to(y_ptr.dtype.element_ty), mask=m)


@triton.jit
def bwd_kernel(x_ptr, w_ptr, dy_ptr, mean_ptr, rstd_ptr, dx_ptr, pw_ptr, pb_ptr, M, N,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    for i in range(0, BLOCK_M):
        row = pid * BLOCK_M + i
        if row < M:
            base = row.to(tl.int64) * N
            mean = tl.load(mean_ptr + row)
            rstd = tl.load(rstd_ptr + row)
            s1 = tl.zeros([BLOCK_N], dtype=tl.float32)  # sum of xhat * w * dy
            s2 = tl.zeros([BLOCK_N], dtype=tl.float32)  # sum of w * dy
            for start in range(0, N, BLOCK_N):
                cols = start + tl.arange(0, BLOCK_N)
                m = cols < N
                x = tl.load(x_ptr + base + cols, mask=m, other=0.0).to(tl.float32)
                dy = tl.load(dy_ptr + base + cols, mask=m, other=0.0).to(tl.float32)
                w = tl.load(w_ptr + cols, mask=m, other=0.0).to(tl.float32)
                xhat = tl.where(m, (x - mean) * rstd, 0.0)
                s1 += xhat * w * dy
                s2 += w * dy
            c1 = tl.sum(s1, axis=0) / N
            c2 = tl.sum(s2, axis=0) / N
            for start in range(0, N, BLOCK_N):
                cols = start + tl.arange(0, BLOCK_N)
                m = cols < N
                x = tl.load(x_ptr + base + cols, mask=m, other=0.0).to(tl.float32)
                dy = tl.load(dy_ptr + base + cols, mask=m, other=0.0).to(tl.float32)
                w = tl.load(w_ptr + cols, mask=m, other=0.0).to(tl.float32)
                xhat = tl.where(m, (x - mean) * rstd, 0.0)
                dx = (w * dy - (xhat * c1 + c2)) * rstd
                tl.store(dx_ptr + base + cols, dx.to(dx_ptr.dtype.element_ty), mask=m)
                # this program's own partial row: nobody else touches it
                pw = tl.load(pw_ptr + pid * N + cols, mask=m, other=0.0)
                pb = tl.load(pb_ptr + pid * N + cols, mask=m, other=0.0)
                tl.store(pw_ptr + pid * N + cols, pw + dy * xhat, mask=m)
                tl.store(pb_ptr + pid * N + cols, pb + dy, mask=m)


@triton.jit
def sum_partials(pw_ptr, pb_ptr, dw_ptr, db_ptr, P, N, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    m = cols < N
    aw = tl.zeros([BLOCK_N], dtype=tl.float32)
    ab = tl.zeros([BLOCK_N], dtype=tl.float32)
    for p in range(0, P):
        aw += tl.load(pw_ptr + p * N + cols, mask=m, other=0.0)
        ab += tl.load(pb_ptr + p * N + cols, mask=m, other=0.0)
    tl.store(dw_ptr + cols, aw.to(dw_ptr.dtype.element_ty), mask=m)
    tl.store(db_ptr + cols, ab.to(db_ptr.dtype.element_ty), mask=m)


class NervousLayerNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        assert x.dim() == 2, "x must be (M, N)"
        assert weight.shape == (x.shape[1],) and bias.shape == (x.shape[1],)
        x = x.contiguous()
        weight = weight.contiguous()
        bias = bias.contiguous()
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        mean = torch.empty((M,), dtype=torch.float32, device=x.device)
        rstd = torch.empty((M,), dtype=torch.float32, device=x.device)
        fwd_kernel[(M,)](x, weight, bias, y, mean, rstd, N, float(eps), BLOCK_N=BLOCK_N)
        ctx.save_for_backward(x, weight, mean, rstd)
        return y

    @staticmethod
    def backward(ctx, dy):
        x, weight, mean, rstd = ctx.saved_tensors
        dy = dy.contiguous()
        assert dy.shape == x.shape
        M, N = x.shape
        programs = triton.cdiv(M, BLOCK_M)
        dx = torch.empty_like(x)
        pw = torch.zeros((programs, N), dtype=torch.float32, device=x.device)
        pb = torch.zeros((programs, N), dtype=torch.float32, device=x.device)
        bwd_kernel[(programs,)](x, weight, dy, mean, rstd, dx, pw, pb, M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        dw = torch.empty((N,), dtype=weight.dtype, device=x.device)
        db = torch.empty((N,), dtype=weight.dtype, device=x.device)
        sum_partials[(triton.cdiv(N, BLOCK_N),)](pw, pb, dw, db, programs, N, BLOCK_N=BLOCK_N)
        return dx, dw, db, None


def layernorm(x, weight, bias, eps=1e-5):
    return NervousLayerNorm.apply(x, weight, bias, eps)
