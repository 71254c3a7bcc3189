# drill: quant-matmul
"""Reference solution for `quant-matmul` — C = A @ dequant(W) with 4-bit weights and float16 activations (W4A16),
as AWQ's Triton kernel does it, with split-K for small M and a GEMV at M = 1.

What it shows:
- the weights stay packed in memory: w_packed[k // 2, n] holds w[k, n] in its low nibble for even k and its high
  nibble for odd k, two's complement (-8..7). Reading 4 bits per weight instead of 16 is the point: at small M the
  GEMM is a GEMV, bound by the weight bytes;
- each packed byte is loaded once: the (BLOCK_K / 2, BLOCK_N) byte tile is split into its low nibbles (even k) and
  high nibbles (odd k), interleaved back into k order with tl.join + tl.permute + tl.reshape;
- the scale per K step, not per weight: BLOCK_K divides group_size, so one step lies in one group and
  sum_k a[m, k] w[k, n] s[g, n] = s[g, n] * sum_k a[m, k] w[k, n]. The int4 values go to tl.dot as float16 (exact)
  and the step's scale row multiplies the float32 partial product;
- MAGIC: a nibble becomes a float16 by its bits: (q ^ 8) is q + 8 in 0..15, OR 0x6400 is the float16 1024 + q + 8,
  exact; minus 1032 gives q, with no int-to-float conversion;
- split-K at small M: N / BLOCK_N column tiles alone are too few programs to keep the H200's loads in flight, so
  SPLIT_K programs share a column tile (every SPLIT_K-th K step each), write float32 partials (SPLIT_K, M, N), and
  a second kernel sums them into c (two launches, deterministic);
- at M = 1 a GEMV (GEMV_MAX_M): no tl.dot (a 16-row MMA would be 15 zero rows), the nibbles made float32 by bits
  ((q ^ 8) | 0x4B000000 is 2^23 + q + 8), multiplied by a on the CUDA cores and summed over k, the scale applied to
  the step's (BLOCK_N,) sum.
Masks on the M and N edges and the K tail (K is a whole number of groups; with BLOCK_K dividing the group the tail
is empty, the masks stay for the probes' shapes).
H200 (torch 2.11, triton 3.6), N = K = 8192, group 128, 2026-12-01 speed batch 2 (docs/serving.md): 48.6 us at
M = 1 (0.97 x cuBLAS on the float16 weight; the previous reference 100.1 us), 52.0 us at M = 16 (0.93 x; was
103.1 us), 106.9 us at M = 128 (0.42 x; was 160.5 us), 2889 us at M = 4096 (0.25 x; the previous reference's
per-weight scale with 128 x 256 tiles took 2589 us there). Still short of 2 x cuBLAS at M <= 16; many schedules
share a 51-52 us floor there and the split-K ones vary run to run (52-103 us over the gate's 20 runs), which looks
like the host's cost of two launches per call rather than the GPU's (not profiled; docs/serving.md).
"""
import torch
import triton
import triton.language as tl

GEMV_MAX_M = 1  # M <= this: the GEMV kernel
# (largest M, (BLOCK_M, BLOCK_N, BLOCK_K, SPLIT_K, num_warps, num_stages, MAGIC, SWAP)): the first row whose M
# bound holds
TILES = ((16, (16, 64, 128, 4, 4, 3, True, False)), (2047, (64, 64, 128, 4, 4, 3, True, False)),
         (None, (128, 128, 128, 1, 8, 3, True, False)))
GEMV_TILES = (128, 64, 8, 4)  # BLOCK_N, BLOCK_R (packed rows per step), SPLIT_K, num_warps


@triton.jit
def _nibbles_to_f16(q, MAGIC: tl.constexpr):
    """q: the unsigned nibbles (0..15, any integer type) -> the signed values -8..7 as float16."""
    if MAGIC:
        return ((q.to(tl.int16) ^ 8) | 0x6400).to(tl.float16, bitcast=True) - 1032.0
    return ((q.to(tl.int32) ^ 8) - 8).to(tl.float16)


@triton.jit
def w4a16_awq_kernel(a_ptr, w_ptr, s_ptr, c_ptr, p_ptr, M, N, K,
                     stride_am, stride_ak, stride_wk, stride_wn, stride_sg, stride_sn, stride_cm, stride_cn,
                     GROUP_SIZE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                     SPLIT_K: tl.constexpr, MAGIC: tl.constexpr, SWAP: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    offs_r = tl.arange(0, BLOCK_K // 2)
    if SWAP:
        acc = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)  # C^T = W^T A^T
    else:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(pid_k * BLOCK_K, K, BLOCK_K * SPLIT_K):
        k = k0 + offs_k
        r = k0 // 2 + offs_r  # packed rows: k = 2r (low nibble) and 2r + 1 (high nibble)
        # the whole step lies in group k0 // GROUP_SIZE (BLOCK_K divides GROUP_SIZE)
        scale = tl.load(s_ptr + (k0 // GROUP_SIZE) * stride_sg + offs_n * stride_sn, mask=offs_n < N,
                        other=0.0).to(tl.float32)
        if SWAP:
            # W^T (BLOCK_N, BLOCK_K) is the dot's first operand (a register operand of Hopper's wgmma: the
            # dequantised tile needs no trip back to shared memory), A^T (BLOCK_K, BLOCK_M) the second
            a_t = tl.load(a_ptr + offs_m[None, :] * stride_am + k[:, None] * stride_ak,
                          mask=(offs_m[None, :] < M) & (k[:, None] < K), other=0.0)
            byte = tl.load(w_ptr + r[None, :] * stride_wk + offs_n[:, None] * stride_wn,
                           mask=(r[None, :] < K // 2) & (offs_n[:, None] < N), other=0)
            q = tl.reshape(tl.join(byte & 0xF, byte >> 4), (BLOCK_N, BLOCK_K))  # k = 2r + (0 | 1) in order
            acc += tl.dot(_nibbles_to_f16(q, MAGIC), a_t) * scale[:, None]
        else:
            a = tl.load(a_ptr + offs_m[:, None] * stride_am + k[None, :] * stride_ak,
                        mask=(offs_m[:, None] < M) & (k[None, :] < K), other=0.0)
            byte = tl.load(w_ptr + r[:, None] * stride_wk + offs_n[None, :] * stride_wn,
                           mask=(r[:, None] < K // 2) & (offs_n[None, :] < N), other=0)
            q = tl.reshape(tl.permute(tl.join(byte & 0xF, byte >> 4), (0, 2, 1)), (BLOCK_K, BLOCK_N))
            acc += tl.dot(a, _nibbles_to_f16(q, MAGIC)) * scale[None, :]
    if SWAP:
        c_mask = (offs_n[:, None] < N) & (offs_m[None, :] < M)
        if SPLIT_K == 1:
            tl.store(c_ptr + offs_m[None, :] * stride_cm + offs_n[:, None] * stride_cn, acc.to(tl.float16),
                     mask=c_mask)
        else:
            tl.store(p_ptr + pid_k * M * N + offs_m[None, :] * N + offs_n[:, None], acc, mask=c_mask)
    else:
        c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        if SPLIT_K == 1:
            tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc.to(tl.float16),
                     mask=c_mask)
        else:
            tl.store(p_ptr + pid_k * M * N + offs_m[:, None] * N + offs_n[None, :], acc, mask=c_mask)


@triton.jit
def w4a16_gemv_kernel(a_ptr, w_ptr, s_ptr, c_ptr, p_ptr, M, N, K,
                      stride_am, stride_ak, stride_wk, stride_wn, stride_sg, stride_sn, stride_cm, stride_cn,
                      GROUP_SIZE: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_R: tl.constexpr,
                      SPLIT_K: tl.constexpr):
    m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_r = tl.arange(0, BLOCK_R)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(pid_k * 2 * BLOCK_R, K, 2 * BLOCK_R * SPLIT_K):
        r = k0 // 2 + offs_r
        ok = r < K // 2
        byte = tl.load(w_ptr + r[:, None] * stride_wk + offs_n[None, :] * stride_wn,
                       mask=ok[:, None] & (offs_n[None, :] < N), other=0).to(tl.int32)
        # float32 magic: the bits of 2^23 + (q + 8) OR'd in, then 2^23 + 8 subtracted: exact, no conversion
        lo = (((byte & 0xF) ^ 8) | 0x4B000000).to(tl.float32, bitcast=True) - 8388616.0
        hi = (((byte >> 4) ^ 8) | 0x4B000000).to(tl.float32, bitcast=True) - 8388616.0
        a_even = tl.load(a_ptr + m * stride_am + (2 * r) * stride_ak, mask=ok, other=0.0).to(tl.float32)
        a_odd = tl.load(a_ptr + m * stride_am + (2 * r + 1) * stride_ak, mask=ok, other=0.0).to(tl.float32)
        part = tl.sum(lo * a_even[:, None] + hi * a_odd[:, None], axis=0)
        scale = tl.load(s_ptr + (k0 // GROUP_SIZE) * stride_sg + offs_n * stride_sn, mask=offs_n < N, other=0.0)
        acc += part * scale.to(tl.float32)
    if SPLIT_K == 1:
        tl.store(c_ptr + m * stride_cm + offs_n * stride_cn, acc.to(tl.float16), mask=offs_n < N)
    else:
        tl.store(p_ptr + pid_k * M * N + m * N + offs_n, acc, mask=offs_n < N)


@triton.jit
def sum_splits_kernel(p_ptr, c_ptr, M, N, stride_cm, stride_cn, SPLIT_K: tl.constexpr, BLOCK: tl.constexpr):
    idx = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = idx < M * N
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for s in range(SPLIT_K):
        acc += tl.load(p_ptr + s * M * N + idx, mask=live, other=0.0)
    tl.store(c_ptr + (idx // N) * stride_cm + (idx % N) * stride_cn, acc.to(tl.float16), mask=live)


def _tiles(M):
    for bound, cfg in TILES:
        if bound is None or M <= bound:
            return cfg
    raise AssertionError("TILES has no row for every M")


def matmul_w4a16(a: torch.Tensor, w_packed: torch.Tensor, scales: torch.Tensor, group_size: int = 128) -> torch.Tensor:
    M, K = a.shape
    assert w_packed.shape[0] * 2 == K and K % group_size == 0, "K must be 2 x w_packed rows and whole groups"
    N = w_packed.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    common = (a.stride(0), a.stride(1), w_packed.stride(0), w_packed.stride(1), scales.stride(0), scales.stride(1),
              c.stride(0), c.stride(1))
    if M <= GEMV_MAX_M:
        block_n, block_r, split_k, warps = GEMV_TILES
        block_r = min(block_r, group_size // 2)  # 2 BLOCK_R values of k per step, inside one group
        split_k = max(1, min(split_k, K // (2 * block_r)))
        grid = (M, triton.cdiv(N, block_n), split_k)
    else:
        block_m, block_n, block_k, split_k, warps, stages, magic, swap = _tiles(M)
        block_k = min(block_k, group_size)  # a step inside one group (group_size is a power of two >= 16)
        split_k = max(1, min(split_k, K // block_k))
        grid = (triton.cdiv(M, block_m), triton.cdiv(N, block_n), split_k)
    partials = torch.empty((split_k, M, N), device=a.device, dtype=torch.float32) if split_k > 1 else c
    if M <= GEMV_MAX_M:
        w4a16_gemv_kernel[grid](a, w_packed, scales, c, partials, M, N, K, *common, GROUP_SIZE=group_size,
                                BLOCK_N=block_n, BLOCK_R=block_r, SPLIT_K=split_k, num_warps=warps)
    else:
        w4a16_awq_kernel[grid](a, w_packed, scales, c, partials, M, N, K, *common, GROUP_SIZE=group_size,
                               BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, SPLIT_K=split_k, MAGIC=magic,
                               SWAP=swap, num_warps=warps, num_stages=stages)
    if split_k > 1:
        sum_splits_kernel[(triton.cdiv(M * N, 1024),)](partials, c, M, N, c.stride(0), c.stride(1), SPLIT_K=split_k,
                                                       BLOCK=1024, num_warps=4)
    return c
