"""Grade one file quiet, then beside busy processes, and print both verdicts' fingerprints (issue 17, item 8).

    python benchmarks/determinism.py FILE [--timeout 12] [--hogs 3]

A verdict must not depend on the machine's load: the two lines must be equal (passed, diagnosis, calls per size,
skipped calls). Run with another checkout's code first (PYTHONPATH=that checkout) to see a grader that is not.
Measured 2026-12-01 on this project's 2-core machine with the code before the fix, a BLOCK=32 vector add, timeout 12:
quiet 5 calls at n=12289, with three busy processes 4.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def fingerprint(v) -> dict:
    return {"passed": v.passed, "diagnosis": v.diagnosis,
            "cases": [(c["size"], c["calls"], c["failed"]) for c in v.cases],
            "skipped": [(c["size"], c["seed"], c["call"]) for c in v.skipped]}


def main() -> None:
    from grader.run import runner

    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--timeout", type=float, default=12.0)
    ap.add_argument("--hogs", type=int, default=3)
    a = ap.parse_args()
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import torch, triton"], check=True)
    print(json.dumps({"import_floor_s": round(time.perf_counter() - t0, 2)}))
    for load in (0, a.hogs):
        hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(load)]
        try:
            t = time.perf_counter()
            v = runner.grade(a.file, device="cpu", timeout=a.timeout)
            print(json.dumps({"busy_processes": load, **fingerprint(v), "wall_s": round(time.perf_counter() - t, 1)}))
        finally:
            for h in hogs:
                h.kill()
                h.wait()


if __name__ == "__main__":
    main()
