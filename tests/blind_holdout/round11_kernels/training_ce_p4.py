import torch
import triton
import triton.language as tl


@triton.jit
def _count_kernel(Target, Count, T, ignore_index, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    t = tl.load(Target + offs, mask=offs < T, other=ignore_index)
    n = tl.sum((t != ignore_index).to(tl.int32), axis=0)
    tl.atomic_add(Count, n)


@triton.jit
def _persistent_ce_kernel(X, stride_t, Target, Count, LossSum, T, V, ignore_index, BLOCK_V: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    n_valid = tl.load(Count).to(tl.float32)
    for row in range(pid, T, nprog):
        x_row = X + tl.cast(row, tl.int64) * stride_t
        tgt = tl.load(Target + row)
        if tgt != ignore_index:
            run_max = tl.full([BLOCK_V], float("-inf"), tl.float32)
            run_sum = tl.zeros([BLOCK_V], tl.float32)
            for v0 in range(0, V, BLOCK_V):
                cols = v0 + tl.arange(0, BLOCK_V)
                x = tl.load(x_row + cols, mask=cols < V, other=float("-inf")).to(tl.float32)
                new_max = tl.maximum(run_max, x)
                safe = tl.where(new_max == float("-inf"), 0.0, new_max)
                run_sum = run_sum * tl.exp(run_max - safe) + tl.exp(x - safe)
                run_max = new_max
            row_max = tl.max(run_max, axis=0)
            row_sum = tl.sum(run_sum * tl.exp(run_max - row_max), axis=0)
            lse = row_max + tl.log(row_sum)
            target_logit = tl.load(x_row + tgt).to(tl.float32)
            tl.atomic_add(LossSum, lse - target_logit)
            for v0 in range(0, V, BLOCK_V):
                cols = v0 + tl.arange(0, BLOCK_V)
                x = tl.load(x_row + cols, mask=cols < V, other=0.0).to(tl.float32)
                g = tl.exp(x - lse) - tl.where(cols == tgt, 1.0, 0.0)
                tl.store(x_row + cols, (g / n_valid).to(X.dtype.element_ty), mask=cols < V)
        else:
            for v0 in range(0, V, BLOCK_V):
                cols = v0 + tl.arange(0, BLOCK_V)
                tl.store(x_row + cols, tl.zeros([BLOCK_V], tl.float32).to(X.dtype.element_ty), mask=cols < V)


@triton.jit
def _finalize_kernel(LossSum, Count, Out):
    total = tl.load(LossSum)
    n = tl.load(Count).to(tl.float32)
    tl.store(Out, (total / n).to(Out.dtype.element_ty))


@triton.jit
def _persistent_scale_kernel(G, stride_t, GradOut, T, V, BLOCK_V: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    s = tl.load(GradOut).to(tl.float32)
    for row in range(pid, T, nprog):
        g_row = G + tl.cast(row, tl.int64) * stride_t
        for v0 in range(0, V, BLOCK_V):
            cols = v0 + tl.arange(0, BLOCK_V)
            g = tl.load(g_row + cols, mask=cols < V, other=0.0).to(tl.float32)
            tl.store(g_row + cols, (g * s).to(G.dtype.element_ty), mask=cols < V)


def _num_programs(device, T):
    if device.type == "cuda":
        return max(1, min(T, 4 * torch.cuda.get_device_properties(device).multi_processor_count))
    return max(1, min(T, 3))


class PersistentCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target, ignore_index):
        T, V = logits.shape
        if logits.stride(1) != 1:
            raise ValueError("vocab dimension must be contiguous")
        target = target.contiguous()
        dev = logits.device
        count = torch.zeros((1,), dtype=torch.int32, device=dev)
        loss_sum = torch.zeros((1,), dtype=torch.float32, device=dev)
        out = torch.empty((), dtype=logits.dtype, device=dev)
        BLOCK_T = 256
        _count_kernel[(triton.cdiv(T, BLOCK_T),)](target, count, T, ignore_index, BLOCK=BLOCK_T)
        BLOCK_V = min(1024, triton.next_power_of_2(V))
        nprog = _num_programs(dev, T)
        _persistent_ce_kernel[(nprog,)](logits, logits.stride(0), target, count, loss_sum, T, V, ignore_index,
                                        BLOCK_V=BLOCK_V, num_warps=4)
        _finalize_kernel[(1,)](loss_sum, count, out)
        ctx.save_for_backward(logits.detach())
        ctx.BLOCK_V = BLOCK_V
        ctx.nprog = nprog
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (grad,) = ctx.saved_tensors
        T, V = grad.shape
        _persistent_scale_kernel[(ctx.nprog,)](grad, grad.stride(0), grad_output.contiguous(), T, V,
                                               BLOCK_V=ctx.BLOCK_V, num_warps=4)
        return grad, None, None


def cross_entropy(logits, target, ignore_index=-100):
    return PersistentCrossEntropy.apply(logits, target, ignore_index)
