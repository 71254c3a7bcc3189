# drill: quant-matmul
"""Reference solution for `quant-matmul` — C = A @ dequant(W) with 4-bit weights and float16 activations (W4A16).

What it shows (the shape of GPTQ's and AWQ's Triton kernels, for this drill's packing):
- the weights stay packed in memory: w_packed[r, n] holds w[2r, n] in its low nibble and w[2r + 1, n] in its high
  nibble, two's complement (-8..7). Reading 4 bits per weight instead of 16 is the whole point: at small M the GEMM
  is a GEMV, memory-bound on the weight bytes if the kernel does little enough work per weight;
- each byte is loaded once: a K step of BLOCK_K rows of k reads BLOCK_K // 2 packed rows, and their low nibbles
  (the even k) and high nibbles (the odd k) are two weight tiles. The even k multiply a's even columns and the odd k
  its odd columns, so the step is two tl.dot calls: a[:, even] @ w[even, :] + a[:, odd] @ w[odd, :] = a @ w. No
  nibble is shifted by a per-k amount and no tile is interleaved back into k order;
- unpack in registers: & 0xF (low) or >> 4 (high), then the sign and the conversion to float16 in one step by the
  nibble's bits: nib ^ 0x6408 read as float16 is 1024 + (nib ^ 8) = 1032 + q, where q = (nib ^ 8) - 8 is the sign
  extension (8..15 -> -8..-1); minus 1032 is q, exact, with no int -> float conversion instruction;
- one float16 scale per (group of group_size rows of K, output column n). The wrapper makes BLOCK_K divide
  group_size, so a whole K step lies in group k0 // group_size and needs one scale row (BLOCK_N,), multiplied into
  the float16 weights before tl.dot (q is exact in float16, q * scale is rounded once);
- split-K for small M: at M <= 16 there are only N / BLOCK_N tiles of C, too few programs to keep 132 SMs busy.
  SPLIT_K programs share a tile, each taking every SPLIT_K-th K step, and add their partial products into a zeroed
  C with tl.atomic_add (float16 adds in whatever order the programs finish: the last bit of c may differ from run
  to run);
- masks on the M and N edges and the K tail;
- large M (M >= LARGE_M = 256) takes another path, the one vLLM's AWQ linear takes at >= 256 tokens: dequantise
  ONCE, then a dense GEMM, both in Triton. The fused kernel dequantises each weight tile once per BLOCK_M rows of a
  (M / BLOCK_M times in all), in the same warps that issue the MMAs; dequant_kernel unpacks each byte once into a
  float16 (K, N) scratch (the same unpack and group scale), then matmul_kernel (Triton's tutorial 03: tl.dot,
  programs in groups of GROUP_M tile rows for L2 reuse) multiplies a by it. The scratch costs K * N * 2 bytes of GPU
  memory during the call (128 MiB at N = K = 8192, 4x the packed weight) and is freed when the call returns. At
  small M its write and read (160 MB at N = K = 8192, 49 us for the dequant kernel alone) cost more than the whole
  fused kernel (26 us at M = 16), which is why decode stays fused; the fused kernel was faster at M = 128, dequant +
  GEMM from M = 256.
H200 (torch 2.11, triton 3.6), N = K = 8192, group 128, against cuBLAS on the float16 weight (docs/serving.md, round
5, 2026-12-02): M = 16 in 26.4 us, 1.70 x (CUDA-graph replays; the speed gate's 20 runs 1.65-1.73 x; the same
kernel with the sign as (q ^ 8) - 8 and an int -> float conversion 29.9 us = 1.50 x), M = 1 1.67 x; not the
issue's 2 x, which needs <= 22.5 us: the int4 bytes alone would take 7 us, and the loop still issues 5.3
instructions per weight (benchmarks/quant_sass.py --r5). M = 4096 through dequant + GEMM: 879 us against cuBLAS's
835 us in the same run, 0.95 x (0.88 x in another; the best fused kernel 0.54-0.57 x).
"""
import torch
import triton
import triton.language as tl

SPLIT_K_SMALL = 4  # M <= 16: programs per tile of C along K
# M >= LARGE_M: dequantise once, then a float16 GEMM. Round 5 on the H200 (N = K = 8192, docs/serving.md): the fused
# kernel is faster at M = 128 (79.6 against 102-108 us), dequant + GEMM from M = 256 (108.6 against 145.2 us)
LARGE_M = 256


@triton.jit
def w4a16_kernel(a_ptr, w_ptr, s_ptr, c_ptr, M, N, K,
                 stride_am, stride_ak, stride_wk, stride_wn, stride_sg, stride_sn, stride_cm, stride_cn,
                 GROUP_SIZE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                 SPLIT_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    offs_r = tl.arange(0, BLOCK_K // 2)  # a step's packed rows: row r holds k = 2r (low nibble) and 2r + 1 (high)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(pid_k * BLOCK_K, K, BLOCK_K * SPLIT_K):  # this program's K steps: every SPLIT_K-th one
        k = k0 + offs_k
        r = k0 // 2 + offs_r  # the step's packed rows
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + k[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (k[None, :] < K), other=0.0)
        a_even, a_odd = tl.split(tl.reshape(a, (BLOCK_M, BLOCK_K // 2, 2)))  # a's columns k0 + 2j and k0 + 2j + 1
        w_mask = (r[:, None] < K // 2) & (offs_n[None, :] < N)
        packed = tl.load(w_ptr + r[:, None] * stride_wk + offs_n[None, :] * stride_wn, mask=w_mask, other=0)
        nib_even = (packed & 0xF).to(tl.int16)  # even k: low nibble (0..15)
        nib_odd = (packed >> 4).to(tl.int16)    # odd k: high nibble
        # the sign and the conversion in one, by the bits: nib ^ 0x6408 read as float16 is 1024 + (nib ^ 8), and
        # (nib ^ 8) - 8 is the two's complement value q (8..15 -> -8..-1), so minus 1032 is q, exactly
        w_even = (nib_even ^ 0x6408).to(tl.float16, bitcast=True) - 1032.0
        w_odd = (nib_odd ^ 0x6408).to(tl.float16, bitcast=True) - 1032.0
        # BLOCK_K divides GROUP_SIZE: the whole step lies in group k0 // GROUP_SIZE, one scale per column
        scale = tl.load(s_ptr + (k0 // GROUP_SIZE) * stride_sg + offs_n * stride_sn, mask=offs_n < N, other=0.0)
        acc = tl.dot(a_even, w_even * scale[None, :], acc)  # the even k of the step
        acc = tl.dot(a_odd, w_odd * scale[None, :], acc)    # + the odd k: a @ w
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    if SPLIT_K == 1:
        tl.store(c_ptrs, acc.to(tl.float16), mask=c_mask)
    else:  # SPLIT_K programs add into the same tile of a zeroed c
        tl.atomic_add(c_ptrs, acc.to(tl.float16), mask=c_mask, sem="relaxed")


@triton.jit
def dequant_kernel(w_ptr, s_ptr, out_ptr, K, N, stride_wk, stride_wn, stride_sg, stride_sn, stride_ok, stride_on,
                   GROUP_SIZE: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_N: tl.constexpr):
    """Packed rows r of BLOCK_N columns, each byte loaded once: out[2r] = low nibble * scale, out[2r + 1] = high
    nibble * scale, in float16 (the fused kernel's unpack: q exact, q * scale rounded once). 2 * BLOCK_R divides
    GROUP_SIZE, so the program's rows lie in one group: one scale row."""
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (r[:, None] < K // 2) & (n[None, :] < N)
    packed = tl.load(w_ptr + r[:, None] * stride_wk + n[None, :] * stride_wn, mask=mask, other=0)
    w_even = ((packed & 0xF).to(tl.int16) ^ 0x6408).to(tl.float16, bitcast=True) - 1032.0  # k = 2r: low nibble
    w_odd = ((packed >> 4).to(tl.int16) ^ 0x6408).to(tl.float16, bitcast=True) - 1032.0    # k = 2r + 1: high
    group = (tl.program_id(0) * BLOCK_R * 2) // GROUP_SIZE
    scale = tl.load(s_ptr + group * stride_sg + n * stride_sn, mask=n < N, other=0.0)
    out = out_ptr + (2 * r)[:, None] * stride_ok + n[None, :] * stride_on
    tl.store(out, w_even * scale[None, :], mask=mask)
    tl.store(out + stride_ok, w_odd * scale[None, :], mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """c = a @ b in float16 with float32 accumulation (Triton's tutorial 03). Programs go through the tiles of c in
    groups of GROUP_M tile rows, so the GROUP_M rows of a and the columns of b a group reads stay in L2. BLOCK_K
    divides K (the wrapper takes it from the group size): no K mask. The M and N edges load wrapped rows / columns
    (offs % M: valid addresses, their results never stored) and the store is masked."""
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    width = GROUP_M * num_n
    first_m = (pid // width) * GROUP_M
    rows = tl.minimum(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % width) % rows
    pid_n = (pid % width) // rows
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_m % M)[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + (offs_n % N)[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K, BLOCK_K):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc.to(tl.float16), mask=c_mask)


def dequantize_w4(w_packed: torch.Tensor, scales: torch.Tensor, group_size: int) -> torch.Tensor:
    """The float16 (K, N) weight w * scale, each packed byte read once (the large-M path's scratch: K * N * 2 bytes)."""
    K, N = w_packed.shape[0] * 2, w_packed.shape[1]
    BLOCK_R, BLOCK_N = min(32, group_size // 2), 128
    w = torch.empty((K, N), device=w_packed.device, dtype=torch.float16)
    grid = (triton.cdiv(K // 2, BLOCK_R), triton.cdiv(N, BLOCK_N))
    dequant_kernel[grid](w_packed, scales, w, K, N, w_packed.stride(0), w_packed.stride(1), scales.stride(0),
                         scales.stride(1), w.stride(0), w.stride(1), GROUP_SIZE=group_size, BLOCK_R=BLOCK_R,
                         BLOCK_N=BLOCK_N, num_warps=4)
    return w


def matmul_fp16(a: torch.Tensor, b: torch.Tensor, group_size: int) -> torch.Tensor:
    """a @ b for a float16 (M, K) and (K, N), K a whole number of groups."""
    M, K = a.shape
    N = b.shape[1]
    # round 5's sweep (H200, N = K = 8192): 128x256x64 tiles, 8 warps, 3 stages from M = 512 (146.5 against 154.5 us
    # there; 0.95-0.97 x cuBLAS at M = 4096); fewer rows leave them too few programs for 132 SMs (M = 256: 134.3
    # against 108.1 us for 128x128x64, 4 warps, 4 stages)
    if M >= 512:
        BLOCK_M, BLOCK_N, BLOCK_K, warps, stages = 128, 256, 64, 8, 3
    else:
        BLOCK_M, BLOCK_N, BLOCK_K, warps, stages = 128, 128, 64, 4, 4
    BLOCK_K = min(BLOCK_K, group_size)  # divides the group, so K: no K tail
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                        c.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=8,
                        num_warps=warps, num_stages=stages)
    return c


def matmul_w4a16(a: torch.Tensor, w_packed: torch.Tensor, scales: torch.Tensor, group_size: int = 128) -> torch.Tensor:
    M, K = a.shape
    assert w_packed.shape[0] * 2 == K and K % group_size == 0, "K must be 2 x w_packed rows and whole groups"
    N = w_packed.shape[1]
    if M >= LARGE_M:  # a compute-bound GEMM: dequantise once (K * N * 2 bytes of scratch), then a float16 GEMM
        return matmul_fp16(a, dequantize_w4(w_packed, scales, group_size), group_size)
    # The fused kernel's tiles by M (H200, N = K = 8192: docs/serving.md). M <= 16 is a decode GEMV: no tall tile,
    # the weight bytes dominate, split K to have enough programs (4 stages: 25.9 against 26.3 us at M = 16 in
    # round 5). Up to LARGE_M, 64-row tiles reuse each dequantised weight tile 64 times.
    if M <= 16:
        BLOCK_M, BLOCK_N, BLOCK_K, SPLIT_K, warps, stages = 16, 64, 128, SPLIT_K_SMALL, 4, 4
    else:  # 16 < M < LARGE_M
        BLOCK_M, BLOCK_N, BLOCK_K, SPLIT_K, warps, stages = 64, 64, 128, 1, 4, 3
    BLOCK_K = min(BLOCK_K, group_size)  # divides group_size (a power of two, as GPTQ's and AWQ's): one group a step
    SPLIT_K = max(1, min(SPLIT_K, K // BLOCK_K))  # no program without a K step
    c = (torch.zeros if SPLIT_K > 1 else torch.empty)((M, N), device=a.device, dtype=torch.float16)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N), SPLIT_K)
    w4a16_kernel[grid](a, w_packed, scales, c, M, N, K,
                       a.stride(0), a.stride(1), w_packed.stride(0), w_packed.stride(1),
                       scales.stride(0), scales.stride(1), c.stride(0), c.stride(1),
                       GROUP_SIZE=group_size, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, SPLIT_K=SPLIT_K,
                       num_warps=warps, num_stages=stages)
    return c
