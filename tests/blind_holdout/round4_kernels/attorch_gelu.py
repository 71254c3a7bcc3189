# drill: gelu
"""
Activation functions with PyTorch autodiff support, attorch-style (element-wise kernel configs, autotuned on size).
"""
from typing import List

import torch
import triton
import triton.language as tl
from triton import Config


def element_wise_kernel_configs(block_name: str = 'BLOCK_SIZE') -> List[Config]:
    """
    Returns kernel configurations for element-wise operations.

    Args:
        block_name: Name of block argument rows are distributed over.
    """
    return [Config({block_name: 64}, num_warps=2),
            Config({block_name: 128}, num_warps=2),
            Config({block_name: 256}, num_warps=4),
            Config({block_name: 1024}, num_warps=4)]


@triton.jit
def tanh(input):
    """
    Applies tanh to the input.
    """
    return 2 * tl.sigmoid(2 * input) - 1


@triton.jit
def apply_gelu(input, approximate: tl.constexpr):
    """
    Applies GELU to the input.
    """
    if approximate:
        cdf = 0.5 * (1 + tanh(0.7978845608028654 * (input + 0.044715 * input * input * input)))
    else:
        cdf = 0.5 * (1 + tl.math.erf(0.7071067811865476 * input))
    return cdf * input


@triton.autotune(
    configs=element_wise_kernel_configs(),
    key=['size'],
)
@triton.jit
def act_func_forward_kernel(
    input_pointer, output_pointer, size,
    approximate: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    ):
    """
    Applies an activation function to the input.

    Args:
        input_pointer: Pointer to the input to transform.
            The input must be of shape [size].
        output_pointer: Pointer to a container the result is written to.
            The container must be of shape [size].
        size: Number of elements in the input.
        approximate: Whether to use the tanh approximation of GELU.
        BLOCK_SIZE: Block size.
    """
    # This program processes BLOCK_SIZE rows.
    pid = tl.program_id(axis=0)
    offset = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offset < size

    input = tl.load(input_pointer + offset, mask=mask).to(tl.float32)
    tl.store(output_pointer + offset, apply_gelu(input, approximate), mask=mask)


class ActFunc:
    @staticmethod
    def forward(input: torch.Tensor, act_func: str = 'gelu_tanh') -> torch.Tensor:
        flattened_input = input.flatten()
        size = len(flattened_input)

        output = torch.empty_like(flattened_input)

        # Launches 1D grid where each program operates over
        # BLOCK_SIZE elements.
        grid = lambda META: (triton.cdiv(size, META['BLOCK_SIZE']),)
        act_func_forward_kernel[grid](flattened_input, output, size, act_func == 'gelu_tanh')

        return output.view_as(input)


def gelu(input: torch.Tensor) -> torch.Tensor:
    return ActFunc.forward(input, 'gelu_tanh')
