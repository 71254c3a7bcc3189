"""Speed of the tensor-core drills on this GPU, and how reliable their speed gates are (benchmark, not a test).

    PYTHONPATH=. python benchmarks/tensor_cores.py --out DIR [--repeats 20]

For matmul, matmul-epilogue and attention, at each drill's bench shape (drills/specs.py: bench_size):
  - TFLOPS of the reference solution, of eager PyTorch and of the drill's reference rows (cuBLAS is eager for
    matmul; F.scaled_dot_product_attention for attention), % of the GPU's dense fp16 peak, % of cuBLAS / SDPA;
  - the speed gate (`speedup_min` x eager, the figure `drill grade --device cuda` checks) run `--repeats` times for
    the reference (target: passes every time) and a known-slow version (target: fails every time):
      matmul           benchmarks/known_slow/matmul_no_tensor_cores.py (FMA units, no tl.dot)
      matmul-epilogue  tests/submissions/wrong/epilogue_two_kernels.py  (matmul, then a bias+relu kernel)
      attention        tests/submissions/wrong/attention_materialised_scores.py  ((S, S) scores in memory)
    Each gate run is what grader.speed.timing does: ROUNDS do_bench medians per function, alternating, median of them.
TFLOPS vs size is `drill bench solutions/matmul.py` (and the other two): docs/tensor-cores.md.
Correctness of every timed version is checked once at the bench shape against a float32 torch result.
Prints tables and writes DIR/tensor_cores.json.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

KNOWN_SLOW = {
    "matmul": ROOT / "benchmarks" / "known_slow" / "matmul_no_tensor_cores.py",
    "matmul-epilogue": ROOT / "tests" / "submissions" / "wrong" / "epilogue_two_kernels.py",
    "attention": ROOT / "tests" / "submissions" / "wrong" / "attention_materialised_scores.py",
}


def load_entry(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(path.stem.replace("-", "_"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


SLOW_MS = 100.0  # a function slower than this is timed with one CUDA-event measurement per round: do_bench would
                # spend ~5 calls estimating before it measures, and the known-slow attention takes ~1 s a call


def one_call_ms(fn) -> float:
    import torch
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end)


def gate_run(fns: dict, rounds: int, slow: set) -> dict:
    """One run of the gate: per function, the median of `rounds` do_bench medians (alternating functions);
    functions in `slow` get one timed call per round instead."""
    from grader.speed.timing import bench_ms, median_of_medians

    per = {label: [] for label in fns}
    for _ in range(rounds):
        for label, fn in fns.items():
            per[label].append(one_call_ms(fn) if label in slow else bench_ms(fn))
    return {label: median_of_medians(v) for label, v in per.items()}


def max_rel_error(out, expected) -> float:
    import torch
    diff = (out.float() - expected.float()).abs()
    scale = expected.float().abs().amax().clamp_min(1e-6)
    return float(diff.amax() / scale) if torch.isfinite(diff).all() else float("inf")


def drill_report(name: str, repeats: int, device_name: str) -> dict:
    import torch

    from drills import get_spec
    from grader.core.data import draw
    from grader.speed.timing import ROUNDS

    spec = get_spec(name)
    size = spec.bench_size
    args = draw(spec, size, 0, "cuda")
    flops = spec.flops(size)
    versions = {"reference": load_entry(spec.solution_path, spec.entry),
                "known-slow": load_entry(KNOWN_SLOW[name], spec.entry)}
    expected = spec.eager(*[a.float() for a in args], **spec.kwargs)
    report = {"drill": name, "size": list(size), "flops": flops, "speedup_min": spec.speedup_min, "versions": {}}
    for version, fn in versions.items():
        t0 = time.perf_counter()
        out = fn(*args, **spec.kwargs)
        torch.cuda.synchronize()
        first_call_s = time.perf_counter() - t0
        err = max_rel_error(out, expected)
        fns = {"candidate": lambda fn=fn: fn(*args, **spec.kwargs),
               "eager": lambda: spec.eager(*args, **spec.kwargs)}
        fns.update({label: (lambda f=f: f(*args, **spec.kwargs)) for label, f in spec.speed_refs})
        slow = {label for label, f in fns.items() if one_call_ms(f) > SLOW_MS}
        runs = []
        for r in range(repeats):
            ms = gate_run(fns, ROUNDS, slow)
            runs.append(ms)
            print(f"  {name:16} {version:10} run {r + 1:2}/{repeats}: candidate {ms['candidate'] * 1e3:9.1f} us, "
                  f"eager {ms['eager'] * 1e3:9.1f} us, speedup {ms['eager'] / ms['candidate']:.3f}", flush=True)
        speedups = [m["eager"] / m["candidate"] for m in runs]
        med = {label: statistics.median(m[label] for m in runs) for label in fns}
        row = {"max_rel_error": err, "first_call_s": first_call_s, "runs": runs,
               "passed": sum(s >= spec.speedup_min for s in speedups), "speedups": speedups,
               "speedup_median": statistics.median(speedups), "speedup_min": min(speedups),
               "speedup_max": max(speedups), "median_ms": med,
               "tflops": {label: flops / (ms / 1e3) / 1e12 for label, ms in med.items()}}
        for label, _ in spec.speed_refs:
            row[f"pct_of {label}"] = 100 * med[label] / med["candidate"]
        report["versions"][version] = row
    from grader.speed.timing import peak_tflops  # the speed gate's table of peaks

    peak = peak_tflops(device_name)
    report["peak_tflops"] = peak
    if peak:
        for row in report["versions"].values():
            row["pct_peak"] = {label: 100 * tf / peak for label, tf in row["tflops"].items()}
    return report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--drills", default="matmul,matmul-epilogue,attention")
    a = ap.parse_args()
    import torch
    import triton

    if not torch.cuda.is_available():
        print("tensor_cores.py needs a CUDA GPU; nothing measured")
        return 2
    device_name = torch.cuda.get_device_name()
    result = {"device": device_name, "torch": torch.__version__, "triton": triton.__version__,
              "measured": time.strftime("%Y-%m-%d %H:%M"), "drills": []}
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in a.drills.split(","):
        result["drills"].append(drill_report(name, a.repeats, device_name))
        (out / "tensor_cores.json").write_text(json.dumps(result, indent=1))  # what is done survives a timeout
    (out / "tensor_cores.json").write_text(json.dumps(result, indent=1))
    print(f"\n{device_name}, torch {torch.__version__}, triton {triton.__version__}")
    for d in result["drills"]:
        print(f"{d['drill']} at {tuple(d['size'])}, gate >= {d['speedup_min']}x eager:")
        for version, row in d["versions"].items():
            tf = ", ".join(f"{k} {v:.0f}" for k, v in row["tflops"].items())
            refs = ", ".join(f"{k[7:]} {v:.0f} %" for k, v in row.items() if k.startswith("pct_of "))
            print(f"  {version:10}: passed {row['passed']}/{len(row['speedups'])}, speedup median "
                  f"{row['speedup_median']:.3f} [{row['speedup_min']:.3f}, {row['speedup_max']:.3f}], TFLOPS: {tf}"
                  + (f"; of {refs}" if refs else "") + f"; max rel error {row['max_rel_error']:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
