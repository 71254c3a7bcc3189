# drill: conv2d
# Implicit-GEMM convolution in the style of FlagGems' conv2d_forward_kernel: a 2-D grid over (N*P*Q, K) tiles,
# one reduction loop over (r, s, channel block), the input's four strides and the weight's four strides passed.
import torch
import triton
import triton.language as tl


@triton.jit
def conv2d_forward_kernel(input_pointer, weight_pointer, output_pointer,
                          in_n, input_height, input_width, out_c, out_height, out_width,
                          input_n_stride, input_c_stride, input_height_stride, input_width_stride,
                          weight_k_stride, weight_c_stride, weight_height_stride, weight_width_stride,
                          output_n_stride, output_c_stride, output_height_stride, output_width_stride,
                          weight_c: tl.constexpr, weight_height: tl.constexpr, weight_width: tl.constexpr,
                          stride_height: tl.constexpr, stride_width: tl.constexpr,
                          padding_height: tl.constexpr, padding_width: tl.constexpr,
                          BLOCK_NI_HO_WO: tl.constexpr, BLOCK_CI: tl.constexpr, BLOCK_CO: tl.constexpr):
    pid_ni_ho_wo = tl.program_id(0)
    pid_co = tl.program_id(1)

    ni_ho_wo_offset = pid_ni_ho_wo * BLOCK_NI_HO_WO + tl.arange(0, BLOCK_NI_HO_WO)
    ni_ho_offset = ni_ho_wo_offset // out_width
    in_n_point_value = ni_ho_offset // out_height
    output_height_point_value = ni_ho_offset % out_height
    output_width_point_value = ni_ho_wo_offset % out_width
    row_ok = ni_ho_wo_offset < in_n * out_height * out_width

    out_per_group_c = pid_co * BLOCK_CO + tl.arange(0, BLOCK_CO)
    co_ok = out_per_group_c < out_c

    accum = tl.zeros((BLOCK_NI_HO_WO, BLOCK_CO), dtype=tl.float32)
    BLOCK_CI_COUNT = (weight_c + BLOCK_CI - 1) // BLOCK_CI
    for hwc in range(weight_height * weight_width * BLOCK_CI_COUNT):
        c = (hwc % BLOCK_CI_COUNT) * BLOCK_CI
        h = (hwc // BLOCK_CI_COUNT) // weight_width
        w = (hwc // BLOCK_CI_COUNT) % weight_width

        input_c_offset = c + tl.arange(0, BLOCK_CI)
        input_height_offset = h - padding_height + stride_height * output_height_point_value
        input_width_offset = w - padding_width + stride_width * output_width_point_value

        curr_input_pointer = (input_pointer + (input_n_stride * in_n_point_value)[:, None]
                              + (input_c_stride * input_c_offset)[None, :]
                              + (input_height_stride * input_height_offset)[:, None]
                              + (input_width_stride * input_width_offset)[:, None])
        curr_weight_pointer = (weight_pointer + (weight_k_stride * out_per_group_c)[None, :]
                               + (weight_c_stride * input_c_offset)[:, None]
                               + weight_height_stride * h + weight_width_stride * w)

        input_mask = (row_ok[:, None] & (input_c_offset < weight_c)[None, :]
                      & (0 <= input_height_offset)[:, None] & (input_height_offset < input_height)[:, None]
                      & (0 <= input_width_offset)[:, None] & (input_width_offset < input_width)[:, None])
        weight_mask = (input_c_offset < weight_c)[:, None] & co_ok[None, :]

        input_block = tl.load(curr_input_pointer, mask=input_mask, other=0.0)
        weight_block = tl.load(curr_weight_pointer, mask=weight_mask, other=0.0)
        accum += tl.dot(input_block, weight_block, allow_tf32=False)

    output_pointer += ((output_n_stride * in_n_point_value)[:, None] + (output_c_stride * out_per_group_c)[None, :]
                       + (output_height_stride * output_height_point_value)[:, None]
                       + (output_width_stride * output_width_point_value)[:, None])
    output_mask = row_ok[:, None] & co_ok[None, :]
    tl.store(output_pointer, accum.to(output_pointer.dtype.element_ty), mask=output_mask)


def conv2d(x, w, stride=1, padding=0):
    N, C, H, W = x.shape
    K, _, R, S = w.shape
    P = (H + 2 * padding - R) // stride + 1
    Q = (W + 2 * padding - S) // stride + 1
    channels_last = x.is_contiguous(memory_format=torch.channels_last) and not x.is_contiguous()
    y = torch.empty((N, K, P, Q), device=x.device, dtype=x.dtype,
                    memory_format=torch.channels_last if channels_last else torch.contiguous_format)
    BLOCK_NI_HO_WO, BLOCK_CI, BLOCK_CO = 32, 16, 32
    grid = (triton.cdiv(N * P * Q, BLOCK_NI_HO_WO), triton.cdiv(K, BLOCK_CO))
    conv2d_forward_kernel[grid](x, w, y, N, H, W, K, P, Q,
                                *x.stride(), *w.stride(), *y.stride(),
                                weight_c=C, weight_height=R, weight_width=S,
                                stride_height=stride, stride_width=stride,
                                padding_height=padding, padding_width=padding,
                                BLOCK_NI_HO_WO=BLOCK_NI_HO_WO, BLOCK_CI=BLOCK_CI, BLOCK_CO=BLOCK_CO,
                                num_warps=4, num_stages=2)
    return y
