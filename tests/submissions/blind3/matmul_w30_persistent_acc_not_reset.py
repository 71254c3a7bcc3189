# drill: matmul
# expect: wrong-values
# style: persistent matmul (tutorial 09 style: grid = number of SMs, tile loop) with the accumulator hoisted out of the tile loop
# why: acc = tl.zeros(...) sits before `for tile_id in range(pid, num_tiles, NUM_SMS)`, so a program that handles a second tile adds the first tile's product into it. Right whenever num_tiles <= NUM_SMS (one tile per program). CPU fallback NUM_SMS = 4, interp evidence: 1x1x1, 64x64x64, 100x40x257 (2 tiles) and 33x200x96 (4 tiles) right in every layout; 127x129x65 and 128x192x128 (6 tiles) wrong in tiles 4 and 5 (they carry tiles 0 and 1). On an H200 (132 SMs) small shapes all pass; 1031x1000x1009 (17x16 = 272 tiles) fails. No OOB lane. Compiles for sm_90.
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_persistent_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                             stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                             NUM_SMS: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_tiles = num_pid_m * num_pid_n
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for tile_id in range(pid, num_tiles, NUM_SMS):
        pid_m = tile_id // num_pid_n
        pid_n = tile_id % num_pid_n
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            k_left = K - k * BLOCK_K
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
            b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
        tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def matmul(a, b):
    M, K = a.shape
    K2, N = b.shape
    assert K == K2
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    if a.is_cuda:
        NUM_SMS = torch.cuda.get_device_properties(a.device).multi_processor_count
    else:
        NUM_SMS = 4
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
    num_tiles = triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N)
    grid = (min(NUM_SMS, num_tiles),)
    matmul_persistent_kernel[grid](a, b, c, M, N, K,
                                   a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                                   BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, NUM_SMS=NUM_SMS)
    return c
