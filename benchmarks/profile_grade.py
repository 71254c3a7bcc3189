"""Where one grading child's seconds go: cProfile of `grader.run.child.grade` (benchmark, not a test).

    PYTHONPATH=. python benchmarks/profile_grade.py --file solutions/vector_add.py --device cuda --out DIR

Runs the child's own grading function in this process (no parent, no fork), the way `python -m grader.run.child` does,
and writes DIR/profile_<drill>_<device>.txt: the phases the child records, the seconds per call (size, seed) and
the 40 functions with the most cumulative and own time. Run it twice to see a warm Triton cache (the second run
finds the compiled kernels on disk).
"""
from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", required=True)
    ap.add_argument("--drill", default=None, help="default: the file's `# drill:` line")
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--out", required=True)
    ap.add_argument("--top", type=int, default=40)
    a = ap.parse_args()
    started = time.perf_counter()
    if a.device == "cpu":  # as grader.run.child.run does, before Triton is imported
        os.environ["TRITON_INTERPRET"] = "1"
        from grader.watch.interp_speed import install
        install()
    os.environ.setdefault("DRILL_SKIP_TIMING", "1")  # the speed gate has its own benchmarks
    from grader.run import child
    from grader.intake.static import inspect_file

    drill = a.drill or inspect_file(Path(a.file)).drill
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    args = child.parse_args(["--file", a.file, "--drill", drill, "--device", a.device, "--out", str(out / "r.json")])
    profile = cProfile.Profile()
    profile.enable()
    result = child.grade(args, a.device == "cpu", started)
    profile.disable()
    total = time.perf_counter() - started
    lines = [f"{drill} on {a.device}: {total:.2f} s in all; phases {json.dumps(result.get('phases'))}",
             f"verdict categories: {sorted({str(c.get('category')) for c in result.get('calls', [])})}",
             "per call (size, seed, call: wall s):"]
    lines += [f"  {c.get('size')} seed {c.get('seed')} call {c.get('call')}: {c.get('wall_s')}"
              for c in result.get("calls", [])]
    for key in ("cumulative", "tottime"):
        buf = io.StringIO()
        pstats.Stats(profile, stream=buf).sort_stats(key).print_stats(a.top)
        lines += [f"\n== by {key} ==", buf.getvalue()]
    path = out / f"profile_{drill}_{a.device}.txt"
    path.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines[:3 + len(result.get("calls", []))]))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
