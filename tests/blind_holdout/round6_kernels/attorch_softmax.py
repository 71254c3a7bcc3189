# drill: softmax
# attorch style softmax: autotuned over warps, heuristics for BLOCK_SIZE_BATCH / BLOCK_SIZE_FEAT, a 2-D
# (batch x feat) tile per program with batch and feature strides, a `log` constexpr for log-softmax.
import torch
import triton
import triton.language as tl
from triton import next_power_of_2


def warps_kernel_configs():
    return [triton.Config({}, num_warps=2 ** i) for i in (2, 3)]


def BLOCK_SIZE_BATCH_heuristic(args):
    return (min(max(1, next_power_of_2(args['batch_dim'] // 2 ** 10)), 128)
            if args['feat_dim'] < 64 else 1) if args['batch_dim'] > 16 else 4


@triton.autotune(
    configs=warps_kernel_configs(),
    key=['batch_dim', 'feat_dim'],
)
@triton.heuristics({'BLOCK_SIZE_BATCH': BLOCK_SIZE_BATCH_heuristic,
                    'BLOCK_SIZE_FEAT': lambda args: next_power_of_2(args['feat_dim'])})
@triton.jit
def softmax_forward_kernel(
    input_pointer, output_pointer,
    batch_dim, feat_dim,
    input_batch_stride, input_feat_stride,
    output_batch_stride, output_feat_stride,
    log: tl.constexpr,
    BLOCK_SIZE_BATCH: tl.constexpr, BLOCK_SIZE_FEAT: tl.constexpr,
):
    batch_pid = tl.program_id(axis=0)

    batch_offset = batch_pid * BLOCK_SIZE_BATCH + tl.arange(0, BLOCK_SIZE_BATCH)
    feat_offset = tl.arange(0, BLOCK_SIZE_FEAT)

    batch_mask = batch_offset < batch_dim
    feat_mask = feat_offset < feat_dim

    input_pointer += (input_batch_stride * batch_offset[:, None] + input_feat_stride * feat_offset[None, :])
    output_pointer += (output_batch_stride * batch_offset[:, None] + output_feat_stride * feat_offset[None, :])

    input = tl.load(input_pointer, mask=batch_mask[:, None] & feat_mask[None, :], other=-float('inf')).to(tl.float32)
    input -= tl.max(input, axis=0)[None, :]
    numerator = tl.exp(input)
    denominator = tl.sum(numerator, axis=1)[:, None]

    if log:
        output = input - tl.log(denominator)
    else:
        output = numerator / denominator

    tl.store(output_pointer, output, mask=batch_mask[:, None] & feat_mask[None, :])


def softmax(x: torch.Tensor) -> torch.Tensor:
    batch_dim, feat_dim = x.shape
    output = torch.empty_like(x)
    grid = lambda META: (triton.cdiv(batch_dim, META['BLOCK_SIZE_BATCH']),)
    softmax_forward_kernel[grid](x, output, batch_dim, feat_dim, *x.stride(), *output.stride(), log=False)
    return output
