# drill: conv2d
import torch
import triton
import triton.language as tl


@triton.jit
def conv2d_forward_kernel(input_pointer, weight_pointer, output_pointer,
                          in_n, input_height, input_width, out_c, out_height, out_width,
                          input_n_stride, input_c_stride, input_height_stride, input_width_stride,
                          weight_n_stride, weight_c_stride, weight_height_stride, weight_width_stride,
                          output_n_stride, output_c_stride, output_height_stride, output_width_stride,
                          weight_c: tl.constexpr, weight_height: tl.constexpr, weight_width: tl.constexpr,
                          stride_height: tl.constexpr, stride_width: tl.constexpr,
                          padding_height: tl.constexpr, padding_width: tl.constexpr,
                          dilation_height: tl.constexpr, dilation_width: tl.constexpr,
                          BLOCK_NI_HO_WO: tl.constexpr, BLOCK_CI: tl.constexpr, BLOCK_CO: tl.constexpr):
    pid_ni_ho_wo = tl.program_id(0)
    pid_co = tl.program_id(1)
    ni_ho_wo_offset = pid_ni_ho_wo * BLOCK_NI_HO_WO + tl.arange(0, BLOCK_NI_HO_WO)
    ni_ho_offset = ni_ho_wo_offset // out_width
    in_n_point_value = ni_ho_offset // out_height
    output_height_point_value = ni_ho_offset % out_height
    output_width_point_value = ni_ho_wo_offset % out_width
    out_per_group_c_offset = pid_co * BLOCK_CO + tl.arange(0, BLOCK_CO)
    input_pointer += input_n_stride * in_n_point_value
    weight_pointer += weight_n_stride * out_per_group_c_offset
    accum = tl.zeros((BLOCK_NI_HO_WO, BLOCK_CO), dtype=tl.float32)
    BLOCK_CI_COUNT = (weight_c + BLOCK_CI - 1) // BLOCK_CI
    for hwc in range(weight_height * weight_width * BLOCK_CI_COUNT):
        c = (hwc % BLOCK_CI_COUNT) * BLOCK_CI
        hw = hwc // BLOCK_CI_COUNT
        h = hw // weight_width
        w = hw % weight_width
        input_c_offset = c + tl.arange(0, BLOCK_CI)
        input_height_offset = h * dilation_height - padding_height + stride_height * output_height_point_value
        input_width_offset = w * dilation_width - padding_width + stride_width * output_width_point_value
        curr_input_pointer = (input_pointer[:, None] + (input_c_stride * input_c_offset)[None, :]
                              + (input_height_stride * input_height_offset)[:, None]
                              + (input_width_stride * input_width_offset)[:, None])
        curr_weight_pointer = (weight_pointer[None, :] + (weight_c_stride * input_c_offset)[:, None]
                               + weight_height_stride * h + weight_width_stride * w)
        input_mask = ((in_n_point_value < in_n)[:, None] & (input_c_offset < weight_c)[None, :]
                      & (0 <= input_height_offset)[:, None] & (input_height_offset < input_height)[:, None]
                      & (0 <= input_width_offset)[:, None] & (input_width_offset < input_width)[:, None])
        weight_mask = (input_c_offset < weight_c)[:, None] & (out_per_group_c_offset < out_c)[None, :]
        input_block = tl.load(curr_input_pointer, mask=input_mask, other=0.0)
        weight_block = tl.load(curr_weight_pointer, mask=weight_mask, other=0.0)
        accum += tl.dot(input_block, weight_block, allow_tf32=False)
    output_pointer += ((output_n_stride * in_n_point_value)[:, None]
                       + (output_c_stride * out_per_group_c_offset)[None, :]
                       + (output_height_stride * output_height_point_value)[:, None]
                       + (output_width_stride * output_width_point_value)[:, None])
    output_mask = ((in_n_point_value < in_n)[:, None] & (out_per_group_c_offset < out_c)[None, :]
                   & (output_height_point_value < out_height)[:, None]
                   & (output_width_point_value < out_width)[:, None])
    tl.store(output_pointer, accum.to(output_pointer.dtype.element_ty), mask=output_mask)


def conv2d(x: torch.Tensor, w: torch.Tensor, stride: int = 1, padding: int = 0) -> torch.Tensor:
    in_n, in_c, in_h, in_w = x.shape
    out_c, w_c, w_h, w_w = w.shape
    assert in_c == w_c
    out_h = (in_h + 2 * padding - w_h) // stride + 1
    out_w = (in_w + 2 * padding - w_w) // stride + 1
    out = torch.empty((in_n, out_c, out_h, out_w), device=x.device, dtype=x.dtype)
    BLOCK_NI_HO_WO, BLOCK_CO = 64, 32
    BLOCK_CI = 32 if in_c > 16 else 16
    grid = (triton.cdiv(in_n * out_h * out_w, BLOCK_NI_HO_WO), triton.cdiv(out_c, BLOCK_CO))
    conv2d_forward_kernel[grid](x, w, out, in_n, in_h, in_w, out_c, out_h, out_w,
                                *x.stride(), *w.stride(), *out.stride(),
                                w_c, w_h, w_w, stride, stride, padding, padding, 1, 1,
                                BLOCK_NI_HO_WO=BLOCK_NI_HO_WO, BLOCK_CI=BLOCK_CI, BLOCK_CO=BLOCK_CO, num_warps=4)
    return out
