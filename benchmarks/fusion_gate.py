"""How reliable is the `fuse` speed gate on this GPU? (benchmark, not a test; needs CUDA)

    PYTHONPATH=. python benchmarks/fusion_gate.py --out DIR [--repeats 20] [--no-full-grade]

Runs grader.speed.timing.speed_report (the exact gate `drill grade` runs on CUDA) `--repeats` times for
  - the reference solution (solutions/fuse.py): target: passes every time, speedup within ±10 % of 5/3;
  - the two-kernel version (tests/submissions/wrong/fuse_two_kernels.py): target: fails (too-slow) every time.
(`drill grade` stops the two-kernel version earlier, with `fusion`; here it is timed anyway.)
Also the reference `gelu` once, and one full `drill grade solutions/fuse.py` with its wall time (target ≤ 15 s).
Prints a table and writes DIR/fusion_gate.json.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def load_entry(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def summarize(reports: list[dict], model_ratio: float) -> dict:
    speedups = [r["speedup"] for r in reports]
    cand = [r["rows"][0]["ms"] * 1e3 for r in reports]
    eager = [r["rows"][1]["ms"] * 1e3 for r in reports]
    return {
        "runs": len(reports),
        "passed": sum(1 for r in reports if r["category"] is None),
        "categories": sorted({str(r["category"]) for r in reports}),
        "speedup_median": statistics.median(speedups), "speedup_min": min(speedups), "speedup_max": max(speedups),
        "speedup_vs_model_pct": 100 * (statistics.median(speedups) / model_ratio - 1),
        "cand_us_median": statistics.median(cand), "cand_us_spread_pct": 100 * (max(cand) - min(cand)) /
        statistics.median(cand),
        "eager_us_median": statistics.median(eager),
        "pct_peak_median": statistics.median(r["rows"][0]["pct_peak"] or 0 for r in reports),
        "gbps_median": statistics.median(r["rows"][0]["gbps"] for r in reports),
        "small_launch_bound": sum(1 for r in reports if r["small"]["launch_bound"]),
        "small_device_us": {k: statistics.median(r["small"]["device_us"][k] for r in reports)
                            for k in ("candidate", "eager")},
        "small_wall_us": {k: statistics.median(r["small"]["wall_us"][k] for r in reports)
                          for k in ("candidate", "eager")},
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="directory for fusion_gate.json")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--no-full-grade", action="store_true", help="skip the timed full `drill grade`")
    a = ap.parse_args()
    os.environ.pop("TRITON_INTERPRET", None)
    import torch
    import triton

    from drills import get_spec
    from grader.speed import timing

    if not torch.cuda.is_available():
        print("needs a CUDA GPU", file=sys.stderr)
        return 2
    os.environ.setdefault("DRILL_HOME", str(Path(a.out) / "drill-home"))  # bandwidth cache: fresh per run
    device = torch.cuda.get_device_name()
    quiet = lambda msg: None  # noqa: E731
    spec = get_spec("fuse")
    model_ratio = spec.byte_model(1)["eager"] / spec.byte_model(1)["fused"]
    subjects = {
        "reference": load_entry(ROOT / "solutions" / "fuse.py", "add_relu"),
        "two-kernels": load_entry(ROOT / "tests" / "submissions" / "wrong" / "fuse_two_kernels.py", "add_relu"),
    }
    results = {"device": device, "torch": torch.__version__, "triton": triton.__version__,
               "n": spec.bench_size, "speedup_min": spec.speedup_min, "model_ratio": model_ratio, "subjects": {}}
    reports = {k: [] for k in subjects}
    started = time.perf_counter()
    for i in range(a.repeats):
        for name, entry in subjects.items():  # alternate, so drift hits both alike
            reports[name].append(timing.speed_report(spec, entry, device, say=quiet))
        print(f"  repeat {i + 1}/{a.repeats}  ({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)
    for name in subjects:
        results["subjects"][name] = {"summary": summarize(reports[name], model_ratio), "reports": reports[name]}
    results["copy_gbps"] = reports["reference"][0]["copy_gbps"]

    gelu = get_spec("gelu")
    g = timing.speed_report(gelu, load_entry(ROOT / "solutions" / "gelu.py", "gelu"), device, say=quiet)
    results["gelu"] = g

    if not a.no_full_grade:
        from grader.run.runner import grade
        t0 = time.perf_counter()
        v = grade(ROOT / "solutions" / "fuse.py", device="cuda")
        results["full_grade"] = {"wall_s": time.perf_counter() - t0, "passed": v.passed, "diagnosis": v.diagnosis,
                                 "speedup": (v.timing or {}).get("speedup")}

    print(f"\n{device}, torch {torch.__version__}, triton {triton.__version__}; n = {spec.bench_size:,}; "
          f"copy bandwidth {results['copy_gbps']:.0f} GB/s (best of clone / Triton copy); spec "
          f"{reports['reference'][0]['peak_gbps'] or '?'} GB/s; gate {spec.speedup_min}x; byte model {model_ratio:.3f}x")
    print(f"{'subject':<14}{'pass':>7}{'speedup med':>13}{'min':>7}{'max':>7}{'vs model':>10}{'µs med':>9}"
          f"{'spread':>8}{'GB/s':>7}{'% peak':>8}")
    for name in subjects:
        s = results["subjects"][name]["summary"]
        print(f"{name:<14}{s['passed']:>4}/{s['runs']:<2}{s['speedup_median']:>13.3f}{s['speedup_min']:>7.3f}"
              f"{s['speedup_max']:>7.3f}{s['speedup_vs_model_pct']:>+9.1f}%{s['cand_us_median']:>9.1f}"
              f"{s['cand_us_spread_pct']:>7.1f}%{s['gbps_median']:>7.0f}{s['pct_peak_median']:>7.0f}%")
    s = results["subjects"]["reference"]["summary"]
    print(f"n=100,000 (reference): device {s['small_device_us']['candidate']:.1f} vs eager "
          f"{s['small_device_us']['eager']:.1f} µs; wall {s['small_wall_us']['candidate']:.1f} vs "
          f"{s['small_wall_us']['eager']:.1f} µs; launch-bound in {s['small_launch_bound']}/{s['runs']} runs")
    print("gelu reference: " + ", ".join(f"{r['label']} {r['ms'] * 1e3:.1f} µs" for r in g["rows"]) +
          f"; speedup {g['speedup']:.2f}x (gate {gelu.speedup_min}x) -> {g['category'] or 'pass'}")
    if "full_grade" in results:
        fg = results["full_grade"]
        print(f"full `drill grade solutions/fuse.py`: {fg['wall_s']:.1f} s, "
              f"{'pass' if fg['passed'] else fg['diagnosis']}")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "fusion_gate.json").write_text(json.dumps(results, indent=1, default=str))
    print(f"wrote {out / 'fusion_gate.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
