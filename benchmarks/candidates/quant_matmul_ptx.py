"""Issue 22, round 6 candidate: the reference's fused M <= 16 kernel with the nibbles unpacked two per integer
instruction (PTX through tl.inline_asm_elementwise), the converter Marlin and FasterTransformer use.

Round 5 (docs/serving.md) left the by-bits loop at 5.3 SASS instructions per weight, 3.0 of them on the integer pipe
(PRMT, LOP3, SHF per weight: Triton widens every uint8 to its own 16-bit lane). Here one 32-bit register holds four
packed bytes (pack=4: four columns n..n+3 of one packed row), and

    t   = prmt(w, 0x3120)                          bytes (b0, b2, b1, b3): b0, b1 at the bottom of the two halves
    lo  = (t         & 0x000F000F) ^ 0x64086408    even k of columns (n, n+1), each half 1024 + (nib ^ 8) as float16
    lo' = ((t >> 8)  & 0x000F000F) ^ 0x64086408    even k of columns (n+2, n+3)
    hi  = ((t >> 4)  & 0x000F000F) ^ 0x64086408    odd k of (n, n+1);  hi' = ((t >> 12) & ...) odd k of (n+2, n+3)
    q   = that - (1032, 1032)                      sub.f16x2: the signed value, exact (the reference's by-bits identity)

is 1 PRMT + 3 SHF + 4 LOP3 + 4 HSUB2 for 8 weights: 1.0 integer instruction per weight instead of 3.0. The values are
the by-bits kernel's (UNPACK = 0, the reference's arithmetic) bit for bit. UNPACK = 2 marks the asm not pure (Triton
then leaves the layout conversion after it); UNPACK = 3 also interleaves the two tiles back into k order for one dot.
CONFIG["BLOCK_K"] may span several groups (a scale row per packed row). The interpreter cannot run PTX, so on CPU
only UNPACK = 0 runs; benchmarks/quant_r6.py checks every config against torch on the H200 before timing it. It lost
(docs/serving.md, round 6): 1.74-1.81 x cuBLAS at M = 16, not the 2 x asked. Round 7 (benchmarks/quant_r7.py) added
MAXNREG and FIXUP (below): split-K 5 with FIXUP was the fastest, 24.1 µs at M = 16 (1.87 x), still short of 2 x.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def unpack_ptx(packed, PURE: tl.constexpr):
    """(q of the low nibbles, q of the high nibbles) as float16 tiles of packed's shape: four bytes per instance.
    PURE = False keeps Triton from moving the tile's conversion to the MMA operand layout above the asm (onto the
    uint8 tile, where it gathers the bytes one LDS.U8 each): the bytes leave shared memory 16 at a time, and the
    float16 tile goes back through shared memory with ldmatrix (benchmarks/quant_sass.py --r6)."""
    return tl.inline_asm_elementwise(
        asm="""
        {
        .reg .b32 t, u, k;
        prmt.b32 t, $4, 0, 0x3120;
        mov.b32 k, 0x64086408;
        lop3.b32 $0, t, 0x000F000F, 0x64086408, 0x6a;
        shr.b32 u, t, 8;
        lop3.b32 $1, u, 0x000F000F, 0x64086408, 0x6a;
        shr.b32 u, t, 4;
        lop3.b32 $2, u, 0x000F000F, 0x64086408, 0x6a;
        shr.b32 u, t, 12;
        lop3.b32 $3, u, 0x000F000F, 0x64086408, 0x6a;
        sub.f16x2 $0, $0, k;
        sub.f16x2 $1, $1, k;
        sub.f16x2 $2, $2, k;
        sub.f16x2 $3, $3, k;
        }
        """,
        constraints="=r,=r,=r,=r,r",
        args=[packed],
        dtype=(tl.float16, tl.float16),
        is_pure=PURE,
        pack=4,
    )


@triton.jit
def w4a16_kernel(a_ptr, w_ptr, s_ptr, c_ptr, M, N, K,
                 stride_am, stride_ak, stride_wk, stride_wn, stride_sg, stride_sn, stride_cm, stride_cn,
                 ws_ptr, count_ptr,
                 GROUP_SIZE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                 SPLIT_K: tl.constexpr, UNPACK: tl.constexpr, FIXUP: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    offs_r = tl.arange(0, BLOCK_K // 2)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(pid_k * BLOCK_K, K, BLOCK_K * SPLIT_K):
        k = k0 + offs_k
        r = k0 // 2 + offs_r
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + k[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (k[None, :] < K), other=0.0)
        a_even, a_odd = tl.split(tl.reshape(a, (BLOCK_M, BLOCK_K // 2, 2)))
        w_mask = (r[:, None] < K // 2) & (offs_n[None, :] < N)
        packed = tl.load(w_ptr + r[:, None] * stride_wk + offs_n[None, :] * stride_wn, mask=w_mask, other=0)
        if UNPACK == 1:
            w_even, w_odd = unpack_ptx(packed, True)
        elif UNPACK >= 2:
            w_even, w_odd = unpack_ptx(packed, False)
        else:  # the reference's by-bits unpack, one weight per 16-bit lane
            w_even = ((packed & 0xF).to(tl.int16) ^ 0x6408).to(tl.float16, bitcast=True) - 1032.0
            w_odd = ((packed >> 4).to(tl.int16) ^ 0x6408).to(tl.float16, bitcast=True) - 1032.0
        if BLOCK_K <= GROUP_SIZE:  # the step lies in one group: one scale row
            scale = tl.load(s_ptr + (k0 // GROUP_SIZE) * stride_sg + offs_n * stride_sn, mask=offs_n < N, other=0.0)
            scale = scale[None, :]
        else:  # the step spans BLOCK_K // GROUP_SIZE groups: each packed row's own (rows 2r and 2r + 1 share one)
            scale = tl.load(s_ptr + ((2 * r) // GROUP_SIZE)[:, None] * stride_sg + offs_n[None, :] * stride_sn,
                            mask=w_mask, other=0.0)
        if UNPACK == 3:  # the two tiles interleaved back into k order (layout only): one dot with a as loaded
            w = tl.reshape(tl.permute(tl.join(w_even, w_odd), (0, 2, 1)), (BLOCK_K, BLOCK_N))
            acc = tl.dot(a, w * scale, acc)
        else:
            acc = tl.dot(a_even, w_even * scale, acc)
            acc = tl.dot(a_odd, w_odd * scale, acc)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    if SPLIT_K == 1:
        tl.store(c_ptrs, acc.to(tl.float16), mask=c_mask)
    elif FIXUP:  # float32 partials into a workspace kept zero between calls; the tile's last program writes c
        ws_ptrs = ws_ptr + offs_m[:, None] * N + offs_n[None, :]
        tl.atomic_add(ws_ptrs, acc, mask=c_mask, sem="relaxed")
        tl.debug_barrier()  # every thread's partial sums before the one thread's release
        count = count_ptr + pid_m * tl.num_programs(1) + pid_n
        arrived = tl.atomic_add(count, 1, sem="acq_rel")
        if arrived == SPLIT_K - 1:
            total = tl.load(ws_ptrs, mask=c_mask, other=0.0, cache_modifier=".cg")  # from L2, where the adds are
            tl.store(c_ptrs, total.to(tl.float16), mask=c_mask)
            tl.store(ws_ptrs, tl.zeros_like(acc), mask=c_mask)  # zero again for the next call
            tl.store(count, 0)
    else:
        tl.atomic_add(c_ptrs, acc.to(tl.float16), mask=c_mask, sem="relaxed")


# M <= 16; the reference's is BLOCK_N 64, split-K 4, 4 warps, 4 stages, BLOCK_K = the group (128)
CONFIG = {"BLOCK_N": 64, "SPLIT_K": 4, "warps": 4, "stages": 4, "UNPACK": 1, "BLOCK_K": 128, "MAXNREG": 0,
          "FIXUP": False}
# FIXUP (round 7): split-K without a zeroed c each call. The programs add float32 partials into a (16, N) workspace
# and count arrivals per tile; the last one writes c and puts the workspace and counter back to zero, so the next
# call finds them zero. Cached per (device, N); two calls on different streams at once would race on it: a
# benchmark's hidden state, not the drill's contract.
_WORKSPACE = {}


def _workspace(device, n: int, tiles: int):
    key = (str(device), n, tiles)
    if key not in _WORKSPACE:
        _WORKSPACE[key] = (torch.zeros((16, n), device=device, dtype=torch.float32),
                           torch.zeros((tiles,), device=device, dtype=torch.int32))
    return _WORKSPACE[key]


def matmul_w4a16(a: torch.Tensor, w_packed: torch.Tensor, scales: torch.Tensor, group_size: int = 128) -> torch.Tensor:
    M, K = a.shape
    assert M <= 16 and w_packed.shape[0] * 2 == K and K % group_size == 0
    N = w_packed.shape[1]
    cfg = dict(CONFIG)
    if not a.is_cuda:
        cfg["UNPACK"] = 0  # the interpreter cannot run PTX
    BLOCK_M, BLOCK_K = 16, cfg.get("BLOCK_K", 128)
    # a step inside one group (one scale row) or of whole groups (a scale row per packed row)
    assert (group_size % BLOCK_K if BLOCK_K <= group_size else BLOCK_K % group_size) == 0
    SPLIT_K = max(1, min(cfg["SPLIT_K"], K // BLOCK_K))
    fixup = bool(cfg.get("FIXUP")) and SPLIT_K > 1
    c = (torch.zeros if SPLIT_K > 1 and not fixup else torch.empty)((M, N), device=a.device, dtype=torch.float16)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, cfg["BLOCK_N"]), SPLIT_K)
    ws, count = _workspace(a.device, N, grid[1]) if fixup else (c, c)
    extra = {"maxnreg": cfg["MAXNREG"]} if cfg.get("MAXNREG") and a.is_cuda else {}
    w4a16_kernel[grid](a, w_packed, scales, c, M, N, K,
                       a.stride(0), a.stride(1), w_packed.stride(0), w_packed.stride(1),
                       scales.stride(0), scales.stride(1), c.stride(0), c.stride(1), ws, count,
                       GROUP_SIZE=group_size, BLOCK_M=BLOCK_M, BLOCK_N=cfg["BLOCK_N"], BLOCK_K=BLOCK_K,
                       SPLIT_K=SPLIT_K, UNPACK=cfg["UNPACK"], FIXUP=fixup, num_warps=cfg["warps"],
                       num_stages=cfg["stages"], **extra)
    return c
