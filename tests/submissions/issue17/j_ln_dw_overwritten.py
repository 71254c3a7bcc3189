# drill: layernorm
# expect: dwdb
# style: nervous candidate (blind round 7): tutorial-05 partial buffers, dw = ... overwrites instead of adding
# why: y and x.grad are right; weight.grad keeps one row per program. The report is about weight.grad: the forward
#      output's row map (every row fine) is not its evidence
# says: weight.grad
# not-says: rows of the
"""LayerNorm forward AND backward in Triton: y = (x - mean) * rstd * w + b, then dx, dW, dB from dy.

`layernorm(x, weight, bias, eps=1e-5)` takes x (M, N) float32 or float16 and weight, bias (N,), and returns y of
x's dtype. It is differentiable: `LayerNorm` is a torch.autograd.Function whose forward and backward launch Triton
kernels. The grader calls y = layernorm(x, w, b), then y.backward(dy), and checks y, x.grad, weight.grad and
bias.grad against float64 autograd. Four holes:
- stats: the mean and the variance over the row's N real elements (the tail of the block is masked), and rstd;
- save:  what the forward keeps for the backward (the backward recomputes xhat from it);
- dx:    the gradient through mean and rstd: two row means, of xhat * (w*dy) and of w*dy;
- dwdb:  dW = sum over rows of dy * xhat, dB = sum over rows of dy. Rows live in different programs, so the sum
         crosses programs: here each backward program owns a contiguous group of rows, adds their terms in float32
         registers and stores them as its own row of a (programs, N) buffer; a second kernel sums those partial
         rows. (Many programs adding into one row instead need a lock or tl.atomic_add: both pass too.)
Graded with N = 1, 17, 781, 1000, 3000 (no block fits exactly), M from 1, float16, and rows of mean 1000 and
standard deviation 1. Stuck? `drill hint layernorm`.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.)
    var = tl.sum(xc * xc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    b = tl.load(B + cols, mask=mask).to(tl.float32)
    y = xc * rstd * w + b
    tl.store(Y + row * stride + cols, y, mask=mask)


@triton.jit
def _layer_norm_bwd_dx_partial(DX, DY, PartialDW, PartialDB, X, W, Mean, Rstd, stride, M, N, rows_per_program,
                               BLOCK_SIZE_N: tl.constexpr, NUM_STAGES: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    w = tl.load(W + cols, mask=mask, other=0.).to(tl.float32)
    dw = tl.zeros([BLOCK_SIZE_N], dtype=tl.float32)  # this program's share of dW and dB, over its rows
    db = tl.zeros([BLOCK_SIZE_N], dtype=tl.float32)
    row_start = pid * rows_per_program
    row_end = tl.minimum(row_start + rows_per_program, M)
    # num_stages: the next rows' loads are issued while this row computes (a GPU hides memory latency this way).
    for row in tl.range(row_start, row_end, num_stages=NUM_STAGES):
        x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
        dy = tl.load(DY + row * stride + cols, mask=mask, other=0.).to(tl.float32)
        mean = tl.load(Mean + row)
        rstd = tl.load(Rstd + row)
        xhat = tl.where(mask, (x - mean) * rstd, 0.)
        wdy = w * dy  # 0 in the masked tail (w and dy load as 0 there)
        dx = (wdy - (xhat * tl.sum(xhat * wdy, axis=0) / N + tl.sum(wdy, axis=0) / N)) * rstd
        tl.store(DX + row * stride + cols, dx, mask=mask)
        dw = dy * xhat
        db += dy
    # Every program has summed its own rows only: the sum across programs is not done yet.
    tl.store(PartialDW + pid * N + cols, dw, mask=mask)
    tl.store(PartialDB + pid * N + cols, db, mask=mask)


@triton.jit
def _layer_norm_bwd_dwdb(PartialDW, PartialDB, FINAL_DW, FINAL_DB, M, N,
                         BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for i in range(0, M, BLOCK_SIZE_M):  # M here: the number of partial rows
        rows = i + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(PartialDW + offs, mask=mask, other=0.)
        db += tl.load(PartialDB + offs, mask=mask, other=0.)
    sum_dw = tl.sum(dw, axis=0)
    sum_db = tl.sum(db, axis=0)
    tl.store(FINAL_DW + cols, sum_dw, mask=cols < N)
    tl.store(FINAL_DB + cols, sum_db, mask=cols < N)


def _num_programs(device: torch.device, M: int) -> int:
    """Backward programs: one per SM on a GPU (each streams ~M / SMs rows); a few under the CPU interpreter, which
    runs programs one after another."""
    if device.type == "cuda":
        return min(M, torch.cuda.get_device_properties(device).multi_processor_count)
    return min(M, 8)


class LayerNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        M, N = x.shape
        y = torch.empty_like(x)
        mean = torch.empty((M,), dtype=torch.float32, device=x.device)
        rstd = torch.empty((M,), dtype=torch.float32, device=x.device)
        MAX_FUSED_SIZE = 65536 // x.element_size()
        BLOCK_SIZE = triton.next_power_of_2(N)
        if BLOCK_SIZE > MAX_FUSED_SIZE:
            raise ValueError(f"this LayerNorm keeps a row in registers: N <= {MAX_FUSED_SIZE} for {x.dtype}")
        num_warps = min(max(BLOCK_SIZE // 1024, 1), 8)  # 8 warps for N = 8192: 32 values per thread
        _layer_norm_fwd[(M,)](x, y, weight, bias, mean, rstd, x.stride(0), N, eps,
                              BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
        ctx.save_for_backward(x, weight, bias, mean, rstd)
        ctx.BLOCK_SIZE = BLOCK_SIZE
        ctx.num_warps = num_warps
        return y

    @staticmethod
    def backward(ctx, dy):
        x, w, b, m, v = ctx.saved_tensors  # as the forward saved them: adapt if you saved something else
        M, N = x.shape
        dy = dy.contiguous()
        programs = _num_programs(x.device, M)
        rows_per_program = triton.cdiv(M, programs)
        programs = triton.cdiv(M, rows_per_program)  # no program without rows
        partial_dw = torch.empty((programs, N), dtype=torch.float32, device=x.device)
        partial_db = torch.empty((programs, N), dtype=torch.float32, device=x.device)
        dw = torch.empty((N,), dtype=w.dtype, device=w.device)
        db = torch.empty((N,), dtype=w.dtype, device=w.device)
        dx = torch.empty_like(dy)
        _layer_norm_bwd_dx_partial[(programs,)](dx, dy, partial_dw, partial_db, x, w, m, v, x.stride(0), M, N,
                                                rows_per_program, BLOCK_SIZE_N=ctx.BLOCK_SIZE, NUM_STAGES=3,
                                                num_warps=ctx.num_warps)
        # Narrow column blocks keep the GPU's SMs busy (32: the H200's fastest, benchmarks/layernorm_candidates.py);
        # the CPU interpreter runs programs one after another, so there fewer, wider ones.
        sum_block_n = 32 if x.device.type == "cuda" else 256
        grid = lambda meta: (triton.cdiv(N, meta["BLOCK_SIZE_N"]),)  # noqa: E731
        _layer_norm_bwd_dwdb[grid](partial_dw, partial_db, dw, db, programs, N, BLOCK_SIZE_M=32,
                                   BLOCK_SIZE_N=sum_block_n)
        return dx, dw, db, None


def layernorm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    return LayerNorm.apply(x, weight, bias, eps)
