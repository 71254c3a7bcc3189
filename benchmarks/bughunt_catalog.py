"""Grade every planted mistake of drills/bugs/ and every slow version on this machine: does each planted file fail
with its category, is each slow version correct with the count its question asks for, and what a grade costs.

    PYTHONPATH=. python benchmarks/bughunt_catalog.py [--device cpu|cuda] [--drills A,B] [--no-slow] [--out FILE.json]

One warm grading worker (as `drill grade --watch` and the tests use), one grade at a time. Prints the import floor
(`python -c "import torch, triton"`) measured in the same run, and the load average, beside the grade times. With
--device cuda (the H200) it also prints, per slow version, the speed gate's speed-up over eager beside the reference's.
--drills keeps the bugs and slow versions of those drills only (several runs side by side share one machine's cores);
--no-slow leaves the slow versions out.
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

import drills
from coach.bughunt import catalog, slow
from grader.run import runner, worker


def import_floor() -> float:
    t = time.monotonic()
    subprocess.run([sys.executable, "-c", "import torch, triton"], check=True)
    return time.monotonic() - t


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--drills", default=None, help="comma-separated drill names (default: every drill)")
    ap.add_argument("--no-slow", action="store_true", help="only the planted mistakes, not the slow versions")
    args = ap.parse_args()
    only = set(args.drills.split(",")) if args.drills else None
    unknown = (only or set()) - set(drills.names())
    if unknown:
        ap.error(f"unknown drill(s): {', '.join(sorted(unknown))}")
    rows, bad = [], 0
    floor = import_floor()
    with worker.warm(), tempfile.TemporaryDirectory() as d:
        for bug in catalog.all_bugs():
            drill = catalog.drills_for(bug)[0]
            if only is not None and drill not in only:
                continue
            p = catalog.plant(bug, drill)
            path = Path(d) / f"{bug.key.replace(':', '__')}.py"
            path.write_text(p.text, encoding="utf-8")
            t = time.monotonic()
            v = runner.grade(path, drill=drill, device=args.device)
            got = "pass" if v.passed else v.diagnosis
            ok = got == bug.category or got in bug.also_ok
            bad += not ok
            rows.append({"kind": "bug", "key": bug.key, "drill": drill, "want": bug.category, "got": got,
                         "planted_line": p.line, "report_line": v.line, "grade_s": round(time.monotonic() - t, 2)})
            print(f"{'ok ' if ok else 'BAD'} {bug.key:38s} want {bug.category:12s} got {got:12s} "
                  f"line {p.line}/{v.line}  {rows[-1]['grade_s']:.2f} s", flush=True)
        refs = {}
        for s in [] if args.no_slow else slow.all_slow():
            drill = next(n for n in drills.names() if s in slow.slow_for(n))
            if only is not None and drill not in only:
                continue
            path = Path(d) / f"slow__{s.key.replace(':', '__')}.py"
            path.write_text(slow.text(s, drill), encoding="utf-8")
            t = time.monotonic()
            v = runner.grade(path, drill=drill, device=args.device)
            if drill not in refs:
                refs[drill] = runner.grade(drills.get_spec(drill).solution_path, drill=drill, device=args.device)
            values = all(c["passed"] for c in v.checks if c["name"].startswith("values"))
            got, base = slow.measured(v, s), slow.measured(refs[drill], s)
            ok = values and (s.measure is None or (got is not None and base is not None and got > base))
            bad += not ok
            speed = (v.timing or {}).get("speedup"), (refs[drill].timing or {}).get("speedup")
            rows.append({"kind": "slow", "key": s.key, "drill": drill, "cause": s.cause, "measure": s.measure,
                         "at": s.at, "slow": got, "reference": base, "values_right": values,
                         "speedup": speed[0], "reference_speedup": speed[1],
                         "grade_s": round(time.monotonic() - t, 2)})
            print(f"{'ok ' if ok else 'BAD'} {s.key:38s} {s.cause:16s} {s.measure}: {got} vs {base}"
                  + (f"  GPU {speed[0]:.2f}x vs {speed[1]:.2f}x eager" if None not in speed else ""), flush=True)
    times = sorted(r["grade_s"] for r in rows if r["kind"] == "bug")
    summary = {"device": args.device, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               "load_average": os.getloadavg(), "import_floor_s": round(floor, 2), "bugs": len(times),
               "bug_grade_median_s": times[len(times) // 2] if times else None,
               "bug_grade_max_s": times[-1] if times else None, "disagreements": bad}
    print(json.dumps(summary))
    if args.out:
        args.out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1, default=str))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
