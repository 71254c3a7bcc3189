# drill: layernorm
# expect: dx
# blind round 11 (2026-12-02, seen half): one program per row, dW/dB by tl.atomic_add into fp32 zeroed buffers, a cast kernel.
import torch
import triton
import triton.language as tl


@triton.jit
def layernorm_fwd_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr,
                         stride_x, stride_y, N, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_N)
    mask = offs < N
    x = tl.load(x_ptr + row * stride_x + offs, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    diff = tl.where(mask, x - mean, 0.0)
    var = tl.sum(diff * diff, axis=0) / N
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = diff * rstd * w + b
    tl.store(y_ptr + row * stride_y + offs, y.to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


@triton.jit
def layernorm_bwd_kernel(x_ptr, dy_ptr, dx_ptr, w_ptr, mean_ptr, rstd_ptr, dw_acc_ptr, db_acc_ptr,
                         stride_x, stride_dy, stride_dx, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_N)
    mask = offs < N
    x = tl.load(x_ptr + row * stride_x + offs, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + row * stride_dy + offs, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    g = dy * w
    proj = tl.sum(g * xhat, axis=0) / N
    dx = (g - xhat * proj) * rstd
    tl.store(dx_ptr + row * stride_dx + offs, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    tl.atomic_add(dw_acc_ptr + offs, dy * xhat, mask=mask)
    tl.atomic_add(db_acc_ptr + offs, dy, mask=mask)


@triton.jit
def cast_kernel(src_ptr, dst_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    v = tl.load(src_ptr + offs, mask=mask)
    tl.store(dst_ptr + offs, v.to(dst_ptr.dtype.element_ty), mask=mask)


class TritonLayerNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        M, N = x.shape
        y = torch.empty_like(x)
        mean = torch.empty(M, device=x.device, dtype=torch.float32)
        rstd = torch.empty(M, device=x.device, dtype=torch.float32)
        BLOCK_N = triton.next_power_of_2(N)
        nw = 4 if BLOCK_N <= 2048 else 8
        layernorm_fwd_kernel[(M,)](x, y, weight, bias, mean, rstd, x.stride(0), y.stride(0), N, eps,
                                   BLOCK_N=BLOCK_N, num_warps=nw)
        ctx.save_for_backward(x, weight, mean, rstd)
        ctx.BLOCK_N = BLOCK_N
        ctx.nw = nw
        return y

    @staticmethod
    def backward(ctx, dy):
        x, weight, mean, rstd = ctx.saved_tensors
        M, N = x.shape
        dx = torch.empty_like(x)
        dw_acc = torch.zeros(N, device=x.device, dtype=torch.float32)
        db_acc = torch.zeros(N, device=x.device, dtype=torch.float32)
        layernorm_bwd_kernel[(M,)](x, dy, dx, weight, mean, rstd, dw_acc, db_acc,
                                   x.stride(0), dy.stride(0), dx.stride(0), N,
                                   BLOCK_N=ctx.BLOCK_N, num_warps=ctx.nw)
        dw = torch.empty(N, device=x.device, dtype=weight.dtype)
        db = torch.empty(N, device=x.device, dtype=weight.dtype)
        grid = (triton.cdiv(N, 1024),)
        cast_kernel[grid](dw_acc, dw, N, BLOCK=1024)
        cast_kernel[grid](db_acc, db, N, BLOCK=1024)
        return dx, dw, db, None


def layernorm(x, weight, bias, eps=1e-5):
    return TritonLayerNorm.apply(x, weight, bias, eps)
