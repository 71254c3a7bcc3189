"""How reliable is layernorm's speed gate on this GPU? (benchmark, not a test; needs CUDA)

    PYTHONPATH=. python benchmarks/layernorm_gate.py [--repeats 20] [--out DIR] [--budget-s 85]

Runs grader.speed.timing.speed_report (the exact gate `drill grade` runs on CUDA: forward + backward at the spec's
bench_size, (4096, 8192) fp16, timed as CUDA-graph replays beside eager F.layer_norm) `--repeats` times, alternating:
  - the reference (solutions/layernorm.py): target: passes every time;
  - the known-slow version (benchmarks/known_slow/layernorm_tutorial_locks.py: tutorial 05's one program per row and
    a spin lock per partial row, correct): target: fails with too-slow every time.
Stops early (and says so) when --budget-s of wall time is spent. Prints every run, then the summary; writes
DIR/layernorm_gate.json.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

VERSIONS = {"reference": ROOT / "solutions" / "layernorm.py",
            "known slow (tutorial 05 locks)": ROOT / "benchmarks" / "known_slow" / "layernorm_tutorial_locks.py"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--out")
    ap.add_argument("--budget-s", type=float, default=85.0)
    a = ap.parse_args(argv)
    import torch
    if not torch.cuda.is_available():
        print("benchmarks/layernorm_gate.py needs a CUDA GPU")
        return 2
    from benchmarks.training import load_entry
    from drills import get_spec
    from grader.speed.timing import speed_report

    spec = get_spec("layernorm")
    entries = {k: load_entry(p, "layernorm") for k, p in VERSIONS.items()}
    name = torch.cuda.get_device_name()
    print(f"{name}, torch {torch.__version__}: layernorm gate, speedup_min {spec.speedup_min}, "
          f"bench_size {spec.bench_size}", flush=True)
    t0 = time.perf_counter()
    runs = {k: [] for k in entries}
    for i in range(a.repeats):
        if time.perf_counter() - t0 > a.budget_s:
            print(f"budget of {a.budget_s:.0f} s spent after {i} repeats", flush=True)
            break
        for k, entry in entries.items():
            r = speed_report(spec, entry, name, say=lambda _msg: None)
            rows = {row["role"]: row for row in r["rows"]}
            runs[k].append({"category": r["category"], "speedup": r["speedup"], "method": r.get("method"),
                            "candidate_us": rows["candidate"]["ms"] * 1e3, "eager_us": rows["eager"]["ms"] * 1e3,
                            "spread": rows["candidate"]["spread"], "wrong": r["wrong"],
                            "gbps": rows["candidate"]["gbps"], "wall_us": r["small"]["wall_us"]})
            x = runs[k][-1]
            print(f"  {i + 1:2d} {k:32s} {x['candidate_us']:7.1f} µs vs eager {x['eager_us']:6.1f} µs = "
                  f"{x['speedup']:.2f}x  {x['gbps']:6.0f} GB/s  {x['category'] or 'pass'}  [{x['method']}]",
                  flush=True)
    summary = {}
    for k, rs in runs.items():
        if not rs:
            continue
        s = [x["speedup"] for x in rs]
        summary[k] = {"runs": len(rs), "passed": sum(x["category"] is None for x in rs), "min": min(s),
                      "median": statistics.median(s), "max": max(s),
                      "candidate_us_median": statistics.median(x["candidate_us"] for x in rs),
                      "eager_us_median": statistics.median(x["eager_us"] for x in rs)}
        m = summary[k]
        print(f"{k}: {m['passed']}/{m['runs']} pass; speedup {m['min']:.2f}..{m['max']:.2f} (median "
              f"{m['median']:.2f}); {m['candidate_us_median']:.1f} µs vs eager {m['eager_us_median']:.1f} µs")
    print(f"wall {time.perf_counter() - t0:.0f} s")
    if a.out:
        Path(a.out).mkdir(parents=True, exist_ok=True)
        Path(a.out, "layernorm_gate.json").write_text(json.dumps(
            {"device": name, "torch": torch.__version__, "speedup_min": spec.speedup_min, "runs": runs,
             "summary": summary}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
