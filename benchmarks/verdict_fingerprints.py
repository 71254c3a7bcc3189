"""Every shipped file's CPU verdict as JSON, to show that a change for speed changed no verdict (benchmark, not a
test).

    PYTHONPATH=. python benchmarks/verdict_fingerprints.py --out before.json     # on the old code
    PYTHONPATH=. python benchmarks/verdict_fingerprints.py --out after.json --compare before.json

Grades the reference solutions and tests/submissions/*/*.py (two at a time, forks of one warm worker, as the test
suite does) and writes each verdict's JSON without what depends on time or on where the code lives: elapsed
seconds, the runs' output, the children's phases. `--compare` prints every field that differs.
The files graded are always this checkout's tests/submissions, whichever grader PYTHONPATH imports.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
EXPECT = re.compile(r"^#\s*expect:\s*(\S+)", re.MULTILINE)
DROP = ("elapsed_s", "runs", "source_lines")
DROP_INFO = ("elapsed_s", "phases")
CLOCKS = ("cpu_s", "wall_s", "elapsed_s", "opcheck_s")   # measured seconds, wherever they appear: not compared
# What depends on the process, not on the grader: object addresses in Dynamo's messages, the machine's free memory.
VOLATILE = ((re.compile(r"0x[0-9a-f]+"), "0x?"), (re.compile(r"[0-9.]+ GB available"), "? GB available"))


def targets(generated: Path | None = None):
    import drills

    if generated is not None:  # the planted bugs and the slow versions the tests write, under fixed names
        yield from generated_files(generated)
    for name in drills.names():
        yield drills.get_spec(name).solution_path, {"drill": name}
    for path in sorted((HERE / "tests" / "submissions").glob("*/*.py")):
        m = EXPECT.search(path.read_text(encoding="utf-8"))
        yield path, {"timeout": 5 if m and m.group(1) == "timeout" else None}   # as tests/test_submissions.py


def generated_files(folder: Path):
    """Every planted bug (for the first drill that draws it) and every slow version, written as the tests write
    them (tests/test_bughunt_catalog.py, tests/test_bughunt_slow.py), so their verdicts are compared too."""
    from coach.bughunt import catalog, slow

    folder.mkdir(parents=True, exist_ok=True)
    for bug in catalog.all_bugs():
        path = folder / f"bug__{bug.key.replace(':', '__')}.py"
        path.write_text(catalog.plant(bug, catalog.drills_for(bug)[0]).text, encoding="utf-8")
        yield path, {}
    for s in slow.graded_on_cpu():
        path = folder / f"slow__{s.key.replace(':', '__')}.py"
        path.write_text(slow.text(s, slow.drill_of(s)), encoding="utf-8")
        yield path, {}


def fingerprint(v, roots) -> dict:
    text = json.dumps(v.to_json(), default=str, sort_keys=True)
    for root in roots:
        text = text.replace(str(root), "<ROOT>")
    data = json.loads(text)
    for k in DROP:
        data.pop(k, None)
    for info in (data.get("info") or {}).values():
        for k in DROP_INFO:
            (info or {}).pop(k, None)
    return data


def diff(a, b, where=""):
    """The fields that differ. Not compared: measured seconds (CLOCKS; a compile lab's `seconds` under info), the
    order of per-tensor rows (memory regions are listed by address, which the allocator picks), VOLATILE text."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in CLOCKS and not (k == "seconds" and where.startswith(".info")):
                yield from diff(a.get(k), b.get(k), f"{where}.{k}")
    elif isinstance(a, str) and isinstance(b, str):
        for pattern, repl in VOLATILE:
            a, b = pattern.sub(repl, a), pattern.sub(repl, b)
        if a != b:
            yield f"{where}: {json.dumps(a)[:160]} != {json.dumps(b)[:160]}"
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and a and \
            all(isinstance(x, dict) and "tensor" in x for x in a + b):
        key = lambda row: json.dumps(row, sort_keys=True)  # noqa: E731
        for i, (x, y) in enumerate(zip(sorted(a, key=key), sorted(b, key=key))):
            yield from diff(x, y, f"{where}(by tensor)[{i}]")
    elif isinstance(a, float) and isinstance(b, float) and a != a and b != b:  # NaN and NaN: the same value
        return
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            yield from diff(x, y, f"{where}[{i}]")
    elif a != b:
        yield f"{where}: {json.dumps(a)[:160]} != {json.dumps(b)[:160]}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--compare", default=None)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default=None, help="substring of the file path")
    ap.add_argument("--no-grade", action="store_true", help="compare --out (written before) with --compare")
    ap.add_argument("--generated", default=None, help="a folder to write the planted bugs and slow versions into "
                    "and grade them too (use the same folder for both runs)")
    a = ap.parse_args()
    if a.no_grade:
        return compare(json.loads(Path(a.compare).read_text(encoding="utf-8")),
                       json.loads(Path(a.out).read_text(encoding="utf-8")))
    from grader.core.spec import ROOT
    from grader.run import runner, worker

    generated = Path(a.generated).resolve() if a.generated else None
    todo = [t for t in targets(generated) if not a.only or a.only in str(t[0])]
    started = time.monotonic()
    with worker.warm(), concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futures = {str(p): pool.submit(runner.grade, p, device="cpu", **kw) for p, kw in todo}
        out = {}
        for p, f in futures.items():
            key = p.replace(str(ROOT), "<ROOT>").replace(str(HERE), "<ROOT>")
            if generated is not None:
                key = key.replace(str(generated), "<GENERATED>")
            out[key] = fingerprint(f.result(), (ROOT, HERE) + ((generated,) if generated else ()))
    Path(a.out).write_text(json.dumps(out, indent=1, sort_keys=True), encoding="utf-8")
    import resource
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)   # the warm worker and its forks, reaped on the way out
    print(f"{len(out)} verdicts in {time.monotonic() - started:.0f} s of wall time, {ru.ru_utime + ru.ru_stime:.0f} s "
          f"of the grading processes' CPU time -> {a.out}")
    return compare(json.loads(Path(a.compare).read_text(encoding="utf-8")), out) if a.compare else 0


def compare(before: dict, after: dict) -> int:
    bad = 0
    for key in sorted(set(before) | set(after)):
        lines = list(diff(before.get(key), after.get(key)))
        if lines:
            bad += 1
            print(key, *lines[:8], sep="\n  ")
    print(f"{bad} of {len(after)} verdicts differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
