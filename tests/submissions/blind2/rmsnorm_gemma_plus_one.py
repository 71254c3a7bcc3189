# drill: rmsnorm
# expect: reduction
# also-ok: wrong-values
# style: copied from a Gemma RMSNorm kernel (unsloth _gemma_rms_layernorm_forward), which scales by (1 + weight)
# why: the drill's RMSNorm multiplies by weight; output = normed * (W + 1.0) is off by + normed for every element (mask, mean over N and fp32 math are fine).
import torch
import triton
import triton.language as tl


@triton.jit
def _gemma_rms_layernorm_forward(Y, Y_row_stride, X, X_row_stride, W, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    Y += row_idx * Y_row_stride
    X += row_idx * X_row_stride
    X_row = tl.load(X + col_offsets, mask=mask, other=0).to(tl.float32)
    W_row = tl.load(W + col_offsets, mask=mask, other=0).to(tl.float32)
    row_var = tl.sum(X_row * X_row, axis=0) / n_cols
    inv_var = tl.math.rsqrt(row_var + eps)
    normed = X_row * inv_var
    output = normed * (W_row + 1.0)
    tl.store(Y + col_offsets, output.to(Y.dtype.element_ty), mask=mask)


def rmsnorm(x, weight, eps=1e-6):
    n_rows, n_cols = x.shape
    Y = torch.empty_like(x)
    _gemma_rms_layernorm_forward[(n_rows,)](Y, Y.stride(0), x, x.stride(0), weight, n_cols, eps,
                                            BLOCK_SIZE=triton.next_power_of_2(n_cols))
    return Y
