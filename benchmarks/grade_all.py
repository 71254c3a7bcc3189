"""Grade every shipped submission (tests/submissions, solutions) on one device; record verdicts and wall times.

    PYTHONPATH=. python benchmarks/grade_all.py --device cuda --out DIR

Used to check that CPU (interpreter) and CUDA verdicts agree and to measure grade wall time on the H200.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.run import runner  # noqa: E402
from drills import get_spec, names  # noqa: E402

EXPECT = re.compile(r"^#\s*expect:\s*(\S+)", re.MULTILINE)
ALSO_OK = re.compile(r"^#\s*also-ok:\s*(.+)$", re.MULTILINE)


def targets(only: str | None):
    for name in names():
        yield get_spec(name).solution_path, name, "pass"
    for path in sorted((ROOT / "tests" / "submissions").glob("*/*.py")):
        text = path.read_text(encoding="utf-8")
        m = EXPECT.search(text)
        also = ALSO_OK.search(text)
        expected = m.group(1) if m else "?"
        yield path, None, expected + ("," + also.group(1).replace(" ", "") if also else "")


def drill_of(path: Path) -> str:
    from grader.intake.static import drill_of as header
    return header(path.read_text(encoding="utf-8"))


def grade_one(path: Path, drill, expected: str, device: str) -> dict:
    """`expected` is a category, or several separated by commas (a blind file's also-ok)."""
    t0 = time.monotonic()
    accepted = expected.split(",")
    v = runner.grade(path, drill=drill, device=device, timeout=25 if accepted[0] == "timeout" else None)
    wall = time.monotonic() - t0
    got = "pass" if v.passed else v.diagnosis
    row = {"file": str(path.relative_to(ROOT)), "drill": v.drill, "device": v.device, "expected": expected,
           "got": got, "ok": got in accepted, "wall_s": round(wall, 2), "line": v.line, "cases": v.cases,
           "info": v.info, "detail": v.detail if not v.passed else None,
           "timing": getattr(v, "timing", None)}
    print(f"{'ok ' if row['ok'] else 'BAD'} {row['file']:<60} {v.device:<5} expected {expected:<15} "
          f"got {got:<15} {wall:6.1f} s", flush=True)
    return row


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="auto")
    ap.add_argument("--out", default=None)
    ap.add_argument("--only", default=None, help="substring of the file path")
    ap.add_argument("--jobs", type=int, default=1, help="grades at once (drills with a speed gate run alone)")
    ap.add_argument("--done", default=None, help="a previous run's printout: skip the files it graded as agreeing")
    ap.add_argument("--skip-timing", action="store_true",
                    help="verdicts only: no speed gate (benchmarks/fusion_gate.py and tensor_cores.py time it)")
    a = ap.parse_args()
    if a.skip_timing:
        import os
        os.environ["DRILL_SKIP_TIMING"] = "1"  # read by grader.run.child; inherited by every grading child
    todo = [t for t in targets(a.only) if not a.only or a.only in str(t[0])]
    if a.done:
        agreed = {ln.split()[1] for ln in Path(a.done).read_text().splitlines() if ln.startswith("ok ")}
        todo = [t for t in todo if str(Path(t[0]).relative_to(ROOT)) not in agreed]
    # Drills with a speed gate time themselves: grade those alone, after the parallel pool.
    timed = [t for t in todo if get_spec(t[1] or drill_of(t[0])).speedup_min is not None and t[2] == "pass"
             and not a.skip_timing]
    pool = [t for t in todo if t not in timed]
    rows = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for row in ex.map(lambda t: grade_one(*t, device=a.device), pool):
            rows.append(row)
    rows += [grade_one(*t, device=a.device) for t in timed]
    bad = [r for r in rows if not r["ok"]]
    print(f"{len(rows) - len(bad)} passed, {len(bad)} failed")
    if a.out:
        Path(a.out).mkdir(parents=True, exist_ok=True)
        (Path(a.out) / f"grade_all_{rows[0]['device'] if rows else a.device}.json").write_text(json.dumps(rows, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
