"""Grade every shipped submission (tests/submissions, solutions) on one device; record verdicts and wall times.

    PYTHONPATH=. python benchmarks/grade_all.py --device cuda --out DIR

Used to check that CPU (interpreter) and CUDA verdicts agree and to measure grade wall time on the H200.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader import runner  # noqa: E402
from drills import get_spec, names  # noqa: E402

EXPECT = re.compile(r"^#\s*expect:\s*(\S+)", re.MULTILINE)


def targets(only: str | None):
    for name in names():
        yield get_spec(name).solution_path, name, "pass"
    for path in sorted((ROOT / "tests" / "submissions").glob("*/*.py")):
        text = path.read_text(encoding="utf-8")
        m = EXPECT.search(text)
        yield path, None, m.group(1) if m else "?"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="auto")
    ap.add_argument("--out", default=None)
    ap.add_argument("--only", default=None, help="substring of the file path")
    a = ap.parse_args()
    rows = []
    for path, drill, expected in targets(a.only):
        if a.only and a.only not in str(path):
            continue
        t0 = time.monotonic()
        v = runner.grade(path, drill=drill, device=a.device, timeout=25 if expected == "timeout" else None)
        wall = time.monotonic() - t0
        got = "pass" if v.passed else v.diagnosis
        row = {"file": str(path.relative_to(ROOT)), "drill": v.drill, "device": v.device, "expected": expected,
               "got": got, "ok": got == expected, "wall_s": round(wall, 2), "line": v.line,
               "cases": v.cases, "info": v.info}
        rows.append(row)
        print(f"{'ok ' if row['ok'] else 'BAD'} {row['file']:<60} {v.device:<5} expected {expected:<15} "
              f"got {got:<15} {wall:6.1f} s", flush=True)
    bad = [r for r in rows if not r["ok"]]
    print(f"{len(rows) - len(bad)} passed, {len(bad)} failed")
    if a.out:
        Path(a.out).mkdir(parents=True, exist_ok=True)
        (Path(a.out) / f"grade_all_{rows[0]['device'] if rows else a.device}.json").write_text(json.dumps(rows, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
