"""Issue 22, round 6: what the split-K wrapper's zeroed output costs at M <= 16 (benchmark, H200).

    cd CHECKOUT && export PYTHONPATH=$PWD && python benchmarks/quant_r6_zeros.py

The fused kernel at M <= 16 splits K over SPLIT_K programs that add into c with atomics, so c must be zeroed first:
a second kernel (torch.zeros) in every call. Timed under CUDA-graph replays (grader.speed.timing.bench_graphed_ms),
3 alternating rounds, N = K = 8192, group 128: the whole call (zeros + kernel), the kernel alone into a buffer zeroed
outside the timed region (not a valid call: a measurement of the zeroing's share), torch.zeros alone, and cuBLAS.
Candidate: benchmarks/candidates/quant_matmul_ptx.py (UNPACK 1, BLOCK_N 64, split-K 8, 4 stages) and the reference's
by-bits kernel (UNPACK 0, split-K 4).
"""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    import torch
    import triton

    from benchmarks.constants import load_module
    from benchmarks.quant_r6 import run_config
    from benchmarks.serving_sweep import GROUP, N_K, quant_inputs, time_rows
    mod = load_module(ROOT / "benchmarks" / "candidates" / "quant_matmul_ptx.py", "quant_ptx_zeros")
    rows = {}
    for M in (16, 1):
        a, w, s, w_deq = quant_inputs(M)
        for name, (bn, sk, unpack) in {"ptx SK 8": (64, 8, 1), "bits SK 4": (64, 4, 0)}.items():
            c = torch.zeros((M, N_K), device="cuda", dtype=torch.float16)
            grid = (1, triton.cdiv(N_K, bn), sk)

            # every value the row needs bound now: the loops rebind M, the config and the tensors before it runs
            def kernel_only(M=M, a=a, w=w, s=s, c=c, bn=bn, sk=sk, unpack=unpack, grid=grid):
                mod.w4a16_kernel[grid](a, w, s, c, M, N_K, N_K, a.stride(0), a.stride(1), w.stride(0), w.stride(1),
                                       s.stride(0), s.stride(1), c.stride(0), c.stride(1), c, c, GROUP_SIZE=GROUP,
                                       BLOCK_M=16, BLOCK_N=bn, BLOCK_K=128, SPLIT_K=sk, UNPACK=unpack, FIXUP=False,
                                       num_warps=4,
                                       num_stages=4)
            rows[(M, f"{name}: whole call (zeros + kernel)")] = \
                lambda a=a, w=w, s=s, cfg=(bn, sk, 4, 4, unpack): run_config(mod, cfg, a, w, s)
            rows[(M, f"{name}: kernel alone (c zeroed outside)")] = kernel_only
        rows[(M, "torch.zeros((M, N)) alone")] = lambda M=M: torch.zeros((M, N_K), device="cuda", dtype=torch.float16)
        rows[(M, "cuBLAS fp16")] = lambda a=a, b=w_deq: a @ b
    per = time_rows(rows, 3, graphed=True)
    for k, v in per.items():
        print(f"M = {k[0]:2d}  {statistics.median(v) * 1e3:6.1f} us [{min(v) * 1e3:.1f} .. {max(v) * 1e3:.1f}]  {k[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
