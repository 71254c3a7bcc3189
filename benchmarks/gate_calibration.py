"""How reliable is a drill's speed gate on this GPU? (benchmark, not a test; needs CUDA) The generic form of
benchmarks/layernorm_gate.py: any drill, any versions.

    PYTHONPATH=. python benchmarks/gate_calibration.py --drill NAME --version LABEL=FILE[:CONST=VALUE,...] ...
        [--repeats 20] [--budget-s 80] [--factor F ...] [--bench-size 8192,128256 --small-size 1024,32000] [--out DIR]

Runs grader.speed.timing.speed_report, the exact gate `drill grade --device cuda` applies (the spec's bench_size,
inputs, bar and rounds; without the small size's launch-bound timings, which never change the verdict), `--repeats`
times, the versions alternating within each repeat; stops early (and says how
many repeats fit) when --budget-s of wall time is spent. A version is a file's entry point, optionally with module
constants changed (benchmarks/constants.py). Per version: how many runs pass the spec's speedup_min (a run passes
when the gate gives no category), how many reach each --factor (a proposed gate for a drill that has none yet, or
another value to compare), and the speedup's min / median / max: the spread a gate must sit clear of.
--dry loads every version and prints what would run (no GPU). --bench-size / --small-size (comma-separated ints) override the spec's, for a drill whose gate is not set yet
(cross-entropy). Writes DIR/gate_<drill or --tag>.json.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def parse_version(text: str):
    label, _, rest = text.partition("=")
    from benchmarks.constants import parse_spec
    path, consts = parse_spec(rest)
    return label, (path if path.is_absolute() else ROOT / path), consts


def summarise(runs: list[dict], speedup_min, factors) -> dict:
    s = [r["speedup"] for r in runs]
    out = {"runs": len(runs), "speedup_min_gate": speedup_min, "min": min(s), "median": statistics.median(s),
           "max": max(s), "candidate_us_median": statistics.median(r["candidate_us"] for r in runs),
           "bar_us_median": statistics.median(r["bar_us"] for r in runs),
           "categories": sorted({str(r["category"]) for r in runs})}
    if speedup_min is not None:
        out["passed"] = sum(r["category"] is None for r in runs)
    out["reach"] = {str(f): sum(x >= f for x in s) for f in factors}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--drill", required=True)
    ap.add_argument("--version", action="append", required=True, help="LABEL=FILE[:CONST=VALUE,...] (repeatable)")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--budget-s", type=float, default=80.0)
    ap.add_argument("--factor", type=float, action="append", default=[])
    ap.add_argument("--bench-size")
    ap.add_argument("--small-size")
    ap.add_argument("--out")
    ap.add_argument("--tag", help="the JSON's name: DIR/gate_<tag>.json (default: the drill's name)")
    ap.add_argument("--dry", action="store_true", help="no GPU: parse, load every version, time nothing")
    a = ap.parse_args(argv)
    import drills
    spec = drills.get_spec(a.drill)
    changes = {}
    if a.bench_size:
        changes["bench_size"] = tuple(int(x) for x in a.bench_size.split(","))
    if a.small_size:
        changes["small_size"] = tuple(int(x) for x in a.small_size.split(","))
    spec = dataclasses.replace(spec, **changes) if changes else spec
    versions = [parse_version(v) for v in a.version]
    import torch
    if a.dry:
        from benchmarks.constants import load_with_constants
        for label, path, consts in versions:
            load_with_constants(path, spec.entry, consts)
            print(f"  dry ok {spec.name} {label}: {path} {consts} (bench_size {spec.bench_size}, small_size "
                  f"{spec.small_size}, speedup_min {spec.speedup_min})")
        return 0
    if not torch.cuda.is_available():
        print("benchmarks/gate_calibration.py needs a CUDA GPU")
        return 2
    from benchmarks.constants import load_with_constants
    from grader.speed.timing import speed_report
    entries = {label: load_with_constants(path, spec.entry, consts) for label, path, consts in versions}
    name = torch.cuda.get_device_name()
    print(f"{name}, torch {torch.__version__}: {spec.name} gate, speedup_min {spec.speedup_min}, bench_size "
          f"{spec.bench_size}, bar {spec.speed_bar or 'eager'}; versions: "
          + "; ".join(f"{label} = {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} {consts or ''}"
                      for label, path, consts in versions), flush=True)
    t0 = time.perf_counter()
    runs = {label: [] for label in entries}
    for i in range(a.repeats):
        if time.perf_counter() - t0 > a.budget_s:
            print(f"budget of {a.budget_s:.0f} s spent after {i} repeats", flush=True)
            break
        for label, entry in entries.items():
            try:
                r = speed_report(spec, entry, name, say=lambda _msg: None, small=False)
            except Exception as e:  # noqa: BLE001 - a version that fails is reported, the others go on
                print(f"  {i + 1:2d} {label:28s} ERROR {type(e).__name__}: {str(e)[:200]}", flush=True)
                continue
            bar = next((row for row in r["rows"] if row["label"] == r["bar"]), r["rows"][1])  # None: eager
            cand = r["rows"][0]
            runs[label].append({"category": r["category"], "speedup": r["speedup"], "method": r.get("method"),
                                "candidate_us": cand["ms"] * 1e3, "bar_us": bar["ms"] * 1e3,
                                "spread": cand["spread"], "wrong": r["wrong"], "gbps": cand["gbps"]})
            x = runs[label][-1]
            print(f"  {i + 1:2d} {label:28s} {x['candidate_us']:9.1f} µs vs {bar['label'][:28]} {x['bar_us']:9.1f} µs "
                  f"= {x['speedup']:.3f}x  {x['category'] or 'pass'}  [{x['method']}]", flush=True)
    summary = {label: summarise(rs, spec.speedup_min, a.factor) for label, rs in runs.items() if rs}
    for label, m in summary.items():
        gate = f"{m['passed']}/{m['runs']} pass speedup_min {spec.speedup_min}; " if "passed" in m else ""
        reach = "; ".join(f">= {f}: {n}/{m['runs']}" for f, n in m["reach"].items())
        print(f"{spec.name} {label}: {gate}{reach}; speedup {m['min']:.3f}..{m['max']:.3f} (median "
              f"{m['median']:.3f}); {m['candidate_us_median']:.1f} µs vs bar {m['bar_us_median']:.1f} µs; "
              f"categories {m['categories']}", flush=True)
    print(f"wall {time.perf_counter() - t0:.0f} s")
    if a.out:
        Path(a.out).mkdir(parents=True, exist_ok=True)
        Path(a.out, f"gate_{a.tag or spec.name}.json").write_text(json.dumps(
            {"device": name, "torch": torch.__version__, "drill": spec.name, "speedup_min": spec.speedup_min,
             "bench_size": list(spec.bench_size) if isinstance(spec.bench_size, tuple) else spec.bench_size,
             "versions": {label: {"file": str(path), "constants": {k: repr(v) for k, v in consts.items()}}
                          for label, path, consts in versions},
             "runs": runs, "summary": summary}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
