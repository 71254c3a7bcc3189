"""How long does Triton's CPU interpreter take per program? (benchmark, not a test; CPU only)

    PYTHONPATH=. python benchmarks/interpreter_per_program.py

Times the vector-add kernel under TRITON_INTERPRET=1 at three (n, BLOCK_SIZE) pairs, median of 5 warm calls, and
prints the time per program. The figure quoted in the `cpu-no-triton` checkpoint and docs/oral.md comes from here.
"""
from __future__ import annotations

import os
import statistics
import time

os.environ["TRITON_INTERPRET"] = "1"  # read when @triton.jit runs below, so it must be set before the decorator

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def main() -> None:
    for n, block in ((100_000, 1024), (100_000, 256), (1_000_000, 1024)):
        x, y = torch.randn(n), torch.randn(n)
        out = torch.empty_like(x)
        programs = triton.cdiv(n, block)
        add_kernel[(programs,)](x, y, out, n, BLOCK_SIZE=block)  # warm-up
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            add_kernel[(programs,)](x, y, out, n, BLOCK_SIZE=block)
            times.append(time.perf_counter() - t0)
        med = statistics.median(times)
        print(f"n={n} BLOCK_SIZE={block} programs={programs}: median {med * 1e3:.1f} ms, "
              f"{med / programs * 1e3:.3f} ms per program")
    print("load average:", " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
