"""CPU grade times of the serving drills' references, next to the import floor, in one run (issue 22: <= 10 s each
on a 2-core machine). Every figure is a fresh process, as a learner runs it; the load average is recorded beside it
(on a shared 2-core machine other work moves these figures by 2x or more).

    PYTHONPATH=. python benchmarks/serving_cpu.py [--runs 3] [--out FILE] [--files FILE ...]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.latency import machine  # noqa: E402

FILES = ("solutions/decode_attention.py", "solutions/quant_matmul.py", "solutions/conv2d.py")


def wall(cmd: list[str], env: dict) -> tuple[float, int]:
    t0 = time.perf_counter()
    rc = subprocess.run(cmd, cwd=str(ROOT), env=env, capture_output=True).returncode
    return time.perf_counter() - t0, rc


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--files", nargs="+", default=list(FILES), help="files to grade (default: the three references)")
    a = ap.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = {"machine": machine(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "rows": []}
    jobs = [("import torch, triton (the floor)", [sys.executable, "-c", "import torch, triton"])]
    jobs += [(f"drill grade {f} --device cpu", [sys.executable, "cli.py", "grade", f, "--device", "cpu"])
             for f in a.files]
    for label, cmd in jobs:
        times, loads, rcs = [], [], []
        for _ in range(a.runs):
            loads.append(os.getloadavg()[0])
            t, rc = wall(cmd, env)
            times.append(round(t, 2))
            rcs.append(rc)
        row = {"what": label, "median_s": statistics.median(times), "runs_s": times, "exit_codes": rcs,
               "load_1min": loads}
        result["rows"].append(row)
        print(f"{label:52s} median {row['median_s']:6.2f} s  runs {times}  exit {rcs}  load {loads}", flush=True)
    if a.out:
        a.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(f"machine: {result['machine']}  ({result['date']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
