# drill: softmax
# expect: pass
# style: Inductor's own persistent-reduction softmax (torch 2.13, `drill inductor softmax --raw`), its shape constants
#        made arguments, its helpers (max_with_index, libdevice.exp) written as tl.max / tl.exp: in_out_ptr0,
#        other=0.0 then tl.where(mask, x, -inf), the mask passed positionally, XBLOCK rows per program
import torch
import triton
import triton.language as tl


@triton.jit
def triton_per_fused_div_exp_max_sub_sum_0(in_out_ptr0, in_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = r0_index < r0_numel
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_1 + r0_numel*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(r0_mask & xmask, tmp1, float("-inf"))
    tmp2 = tl.max(tmp3, 1)[:, None]
    tmp5 = tmp0 - tmp2
    tmp6 = tl.exp(tmp5)
    tmp7 = tl.broadcast_to(tmp6, [XBLOCK, R0_BLOCK])
    tmp9 = tl.where(r0_mask & xmask, tmp7, 0)
    tmp10 = tl.sum(tmp9, 1)[:, None].to(tl.float32)
    tmp11 = (tmp6 / tmp10)
    tl.store(in_out_ptr0 + (r0_1 + r0_numel*x0), tmp11, r0_mask & xmask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    buf = torch.empty_strided((M, N), (N, 1), dtype=torch.float32, device=x.device)
    XBLOCK = 8
    triton_per_fused_div_exp_max_sub_sum_0[(triton.cdiv(M, XBLOCK),)](buf, x, M, N, XBLOCK=XBLOCK,
                                                                      R0_BLOCK=triton.next_power_of_2(N))
    return buf
