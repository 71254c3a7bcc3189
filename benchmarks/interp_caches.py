"""The interpreter's type caches and same-shape broadcast (grader/watch/interp_speed.py) on and off: same verdict,
CPU seconds (benchmark).

    PYTHONPATH=. python benchmarks/interp_caches.py [--reps 2] FILE...

Grades each FILE on the CPU (the child's own grading function, in a fresh process per grade, the warm worker's
speedups installed as a grade does) once with the type caches and once without, REPS times each, alternating, and
prints the best CPU seconds of each side, the ratio, and whether the two results are identical (every field but
measured seconds, rows per tensor in any order: benchmarks/verdict_fingerprints.diff). The import floor (`import torch, triton`) is measured in the same run. Exit 1 if any result differs.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.verdict_fingerprints import diff  # noqa: E402 - the same comparison as the verdicts' fingerprints

GRADE = r'''
import json, os, sys, time
os.environ["TRITON_INTERPRET"] = "1"
os.environ.setdefault("DRILL_SKIP_TIMING", "1")
sys.path.insert(0, sys.argv[1])
from grader.watch import interp_speed
if sys.argv[3] == "off":
    interp_speed.cache_interpreter_types = interp_speed.faster_type_inits = interp_speed.same_shape_broadcast = \
        lambda: False
applied = interp_speed.install()
from pathlib import Path
from grader.intake.static import inspect_file
from grader.run import child
f = sys.argv[2]
args = child.parse_args(["--file", f, "--drill", inspect_file(Path(f)).drill, "--device", "cpu", "--out", sys.argv[4]])
c0 = time.process_time()
result = child.grade(args, True, time.perf_counter())
print("RESULT " + json.dumps({"cpu_s": time.process_time() - c0, "applied": applied, "result": result}, default=str))
'''


def grade(path: str, mode: str) -> dict:
    with tempfile.TemporaryDirectory() as d:
        out = subprocess.run([sys.executable, "-c", GRADE, str(ROOT), path, mode, os.path.join(d, "r.json")],
                             capture_output=True, text=True, timeout=600)
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None:
        raise RuntimeError(f"{path} ({mode}): {out.stderr[-1500:]}")
    return json.loads(line[len("RESULT "):])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--reps", type=int, default=2)
    a = ap.parse_args()
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import torch, triton"], check=True)
    floor = time.perf_counter() - t
    import triton
    import torch
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}  torch {torch.__version__}  triton "
          f"{triton.__version__}  import floor {floor:.2f} s wall  load {os.getloadavg()[0]:.1f}")
    print(f"{'off s':>7} {'on s':>7} {'on/off':>6}  same  file")
    differ, tot = 0, [0.0, 0.0]
    for f in a.files:
        best = {"off": None, "on": None}
        results = {}
        for _ in range(a.reps):
            for mode in ("off", "on"):
                r = grade(f, mode)
                results[mode] = r
                best[mode] = r["cpu_s"] if best[mode] is None else min(best[mode], r["cpu_s"])
        changed = [ln for ln in diff(results["off"]["result"], results["on"]["result"]) if not ln.startswith(".phases.")]
        same = not changed
        differ += not same
        tot[0] += best["off"]
        tot[1] += best["on"]
        on = results["on"]["applied"]
        print(f"{best['off']:7.2f} {best['on']:7.2f} {best['on'] / best['off']:6.2f}  {'yes' if same else 'NO '}  {f}"
              + ("" if on.get("type_caches") and on.get("type_inits") and on.get("same_shape_broadcast")
                 else f"  (applied: {on})"), flush=True)
        for line in changed[:6]:
            print("      ", line)
    print(f"{tot[0]:7.2f} {tot[1]:7.2f} {tot[1] / tot[0]:6.2f}  {len(a.files) - differ}/{len(a.files)} identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
