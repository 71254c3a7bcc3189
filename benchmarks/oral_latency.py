"""Wall time of `drill checkpoints ID --answer` in English and in Chinese (jieba loads for Chinese only) next to the
import floor (`python -c "import torch, triton"`), medians of N fresh processes, on this machine.

    PYTHONPATH=. python benchmarks/oral_latency.py [N]"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

EN = "n is rarely a multiple of BLOCK_SIZE, so the last tile reads and writes out of bounds; nothing crashes."
ZH = "n 往往不是 BLOCK_SIZE 的倍数，最后一块会越界读写；而且不一定崩，数值可能看起来还是对的。"


def wall(cmd: list[str], n: int) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    py = sys.executable
    rows = {
        "import torch, triton": wall([py, "-c", "import torch, triton"], n),
        "checkpoints --answer (en)": wall([py, "cli.py", "checkpoints", "why-mask", "--answer", EN], n),
        "checkpoints --answer (zh)": wall([py, "cli.py", "checkpoints", "why-mask", "--lang", "zh", "--answer", ZH], n),
    }
    load = os.getloadavg()[0]
    for k, v in rows.items():
        print(f"{k:30s} {v:.2f} s")
    print(f"median of {n} fresh processes, load average {load:.1f}, {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
