# drill: vector-add
import torch
import triton
import triton.language as tl


def BLOCK_SIZE_heuristic(args) -> int:
    """Power of two covering the vector, capped at 1024 elements per program."""
    return min(triton.next_power_of_2(args['size']), 1024)


def warps_heuristic(args) -> int:
    return 4 if args['BLOCK_SIZE'] >= 512 else 1


@triton.heuristics({'BLOCK_SIZE': BLOCK_SIZE_heuristic,
                    'EVEN': lambda args: args['size'] % args['BLOCK_SIZE'] == 0,
                    'num_warps': warps_heuristic})
@triton.jit
def add_kernel(
    input1_pointer, input2_pointer, output_pointer,
    size,
    input1_stride, input2_stride, output_stride,
    SCALE_INPUT2: tl.constexpr,
    BLOCK_SIZE: tl.constexpr, EVEN: tl.constexpr,
    ):
    """
    Adds two vectors element-wise.

    Args:
        input1_pointer: Pointer to the first input, of shape [size].
        input2_pointer: Pointer to the second input, of shape [size].
        output_pointer: Pointer to a container the result is written to, of shape [size].
        size: Number of elements in the inputs.
        input1_stride, input2_stride, output_stride: Strides of the inputs and the output.
        SCALE_INPUT2: Flag for multiplying the second input by -1 (a subtraction) instead of adding it as is.
        BLOCK_SIZE: Block size.
        EVEN: Flag for size being a multiple of BLOCK_SIZE: no mask needed.
    """
    # This program processes BLOCK_SIZE elements.
    pid = tl.program_id(axis=0).to(tl.int64)
    offset = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)

    input1_pointer += offset * input1_stride
    input2_pointer += offset * input2_stride
    output_pointer += offset * output_stride

    if EVEN:
        input1 = tl.load(input1_pointer)
        input2 = tl.load(input2_pointer)
    else:
        mask = offset < size
        input1 = tl.load(input1_pointer, mask=mask)
        input2 = tl.load(input2_pointer, mask=mask)

    if SCALE_INPUT2:
        input2 = -input2
    output = input1 + input2

    if EVEN:
        tl.store(output_pointer, output)
    else:
        tl.store(output_pointer, output, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    flat_x, flat_y = x.view(-1), y.view(-1)
    size = flat_x.shape[0]
    output = torch.empty_like(flat_x)

    # Launches 1D grid where each program operates over BLOCK_SIZE elements.
    grid = lambda META: (triton.cdiv(size, META['BLOCK_SIZE']),)
    add_kernel[grid](flat_x, flat_y, output, size,
                     flat_x.stride(0), flat_y.stride(0), output.stride(0),
                     SCALE_INPUT2=False)
    return output.view_as(x)
