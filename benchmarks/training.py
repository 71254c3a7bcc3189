"""Speed and memory of the training drills on a GPU (benchmark, not a test; the lead runs it on the H200).

    PYTHONPATH=. python benchmarks/training.py --out DIR [--repeats 20]

layernorm, forward + backward at (4096, 8192) float16 (y = layernorm(x, w, b); y.backward(dy)):
  - µs per step and GB/s against the bytes floor (forward reads x, w, b and writes y; backward reads x, dy and
    writes dx: 5 M N elements plus the small vectors) for: the reference solution (solutions/layernorm.py), eager
    F.layer_norm, torch.compile(F.layer_norm, dynamic=False), and a known-slow version (dW/dB summed by torch in the
    backward: tests/submissions/wrong/layernorm_dw_in_torch.py), all timed side by side in one run;
  - the ratio of the reference to eager and to torch.compile, `--repeats` times (each run: ROUNDS alternating
    do_bench medians per function): the data a future speed gate would be calibrated on. No gate is in the spec:
    it is uncalibrated until this has run.
cross-entropy, forward + backward at (8192, 128256) bfloat16 logits, int64 targets (5 % ignore_index):
  - µs per step, peak extra memory (torch.cuda.max_memory_allocated over the step, minus what was allocated before
    it: the logits and targets) and that peak minus the gradient's own T x V bytes, for eager F.cross_entropy,
    torch.compile(dynamic=False) and, when solutions/cross_entropy.py exists, the reference. The bytes floor: the
    logits read once and the gradient written once.
Correctness of every timed layernorm version is checked once against float32 eager (y and the three gradients).
Prints tables and writes DIR/training.json. Without CUDA it says so and exits 2.
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

LN_SHAPE = (4096, 8192)
CE_SHAPE = (8192, 128256)
ROUNDS = 5
KNOWN_SLOW_LN = ROOT / "tests" / "submissions" / "wrong" / "layernorm_dw_in_torch.py"
CE_SOLUTION = ROOT / "solutions" / "cross_entropy.py"


def layernorm_bytes(shape, elsize: int) -> int:
    """The fewest bytes a fused forward + backward moves: x read twice (forward, backward), y written, dy read, dx
    written (5 M N elements), w and b read and dW, dB written (4 N), mean and rstd written and read (4 M float32)."""
    m, n = shape
    return 5 * m * n * elsize + 4 * n * elsize + 4 * m * 4


def cross_entropy_bytes(shape, elsize: int) -> int:
    """Logits read once, the gradient written once (in place of the logits or not), targets read."""
    t, v = shape
    return 2 * t * v * elsize + t * 8


def load_entry(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(path.stem.replace("-", "_"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def ln_step(fn, x, w, b, dy):
    """One training step of a layernorm: forward, backward, gradients cleared (autograd accumulates them)."""
    def step():
        x.grad = w.grad = b.grad = None
        y = fn(x, w, b, 1e-5)
        y.backward(dy)
    return step


def ce_step(fn, logits, target):
    def step():
        logits.grad = None
        loss = fn(logits, target)
        loss.backward()
    return step


def bench_us(step) -> float:
    from triton.testing import do_bench
    return 1000.0 * do_bench(step, warmup=25, rep=100)


def alternating(steps: dict, rounds: int = ROUNDS) -> dict:
    """Per function, the median of `rounds` do_bench medians, the functions alternating (as grader.speed.timing)."""
    seen = {k: [] for k in steps}
    for _ in range(rounds):
        for k, s in steps.items():
            seen[k].append(bench_us(s))
    return {k: statistics.median(v) for k, v in seen.items()}


def peak_extra(step) -> int:
    """Bytes allocated at the step's peak beyond what was allocated before it."""
    import torch
    step()  # compile / autotune outside the measurement
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    step()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - before


def check_layernorm(fn, x, w, b, dy) -> float:
    """Largest error of y and the three gradients, relative to float32 eager's largest magnitude of each."""
    import torch
    import torch.nn.functional as F

    def run(f, *args):
        leaves = [t.detach().clone().requires_grad_() for t in args]
        y = f(*leaves, 1e-5)
        y.backward(dy.to(y.dtype))
        return [y.detach()] + [t.grad for t in leaves]

    got = run(fn, x, w, b)
    want = run(lambda x, w, b, eps: F.layer_norm(x, (x.shape[-1],), w, b, eps), x.float(), w.float(), b.float())
    return max(float((g.float() - r).abs().max() / r.abs().max().clamp_min(1e-30)) for g, r in zip(got, want))


def layernorm_report(repeats: int, peak_gbs: float | None) -> dict:
    import torch
    import torch.nn.functional as F

    m, n = LN_SHAPE
    gen = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(LN_SHAPE, device="cuda", generator=gen, dtype=torch.float16).requires_grad_()
    w = (torch.rand(n, device="cuda", generator=gen) + 0.5).half().requires_grad_()
    b = torch.randn(n, device="cuda", generator=gen, dtype=torch.float16).requires_grad_()
    dy = torch.randn(LN_SHAPE, device="cuda", generator=gen, dtype=torch.float16)

    def eager(x, w, b, eps):
        return F.layer_norm(x, (x.shape[-1],), w, b, eps)

    fns = {"reference": load_entry(ROOT / "solutions" / "layernorm.py", "layernorm"),
           "eager F.layer_norm": eager,
           "torch.compile(dynamic=False)": torch.compile(eager, dynamic=False),
           "known slow (dW/dB by torch)": load_entry(KNOWN_SLOW_LN, "layernorm")}
    errors = {k: check_layernorm(f, x.detach(), w.detach(), b.detach(), dy) for k, f in fns.items()}
    steps = {k: ln_step(f, x, w, b, dy) for k, f in fns.items()}
    floor = layernorm_bytes(LN_SHAPE, 2)
    runs = []
    for i in range(repeats):
        us = alternating(steps)
        runs.append(us)
        print(f"  run {i + 1}/{repeats}: " + ", ".join(f"{k} {v:.1f} µs" for k, v in us.items()), flush=True)
    med = {k: statistics.median(r[k] for r in runs) for k in fns}
    rows = [{"name": k, "us": round(v, 1), "gbs": round(floor / v / 1e3, 1),
             "floor_share": round(floor / v / 1e3 / peak_gbs, 3) if peak_gbs else None,
             "max_rel_error": errors[k]} for k, v in med.items()]
    ratio = {"vs_eager": [r["eager F.layer_norm"] / r["reference"] for r in runs],
             "vs_compile": [r["torch.compile(dynamic=False)"] / r["reference"] for r in runs],
             "slow_vs_eager": [r["eager F.layer_norm"] / r["known slow (dW/dB by torch)"] for r in runs]}
    return {"shape": list(LN_SHAPE), "dtype": "float16", "bytes_floor": floor, "rows": rows, "runs": runs,
            "ratios": {k: {"min": min(v), "median": statistics.median(v), "max": max(v)} for k, v in ratio.items()}}


def cross_entropy_report() -> dict:
    import torch
    import torch.nn.functional as F

    t, v = CE_SHAPE
    gen = torch.Generator(device="cuda").manual_seed(0)
    logits = (torch.randn(CE_SHAPE, device="cuda", generator=gen) * 2).to(torch.bfloat16).requires_grad_()
    target = torch.randint(0, v, (t,), device="cuda", generator=gen)
    target[torch.rand(t, device="cuda", generator=gen) < 0.05] = -100

    def eager(logits, target):
        return F.cross_entropy(logits, target, ignore_index=-100)

    fns = {"eager F.cross_entropy": eager, "torch.compile(dynamic=False)": torch.compile(eager, dynamic=False)}
    if CE_SOLUTION.exists():
        fns["reference"] = load_entry(CE_SOLUTION, "cross_entropy")
    grad_bytes = t * v * 2
    rows = []
    for k, f in fns.items():
        step = ce_step(f, logits, target)
        try:
            peak = peak_extra(step)
            us = alternating({k: step}, rounds=3)[k]
        except torch.cuda.OutOfMemoryError as e:  # reported, not fatal
            rows.append({"name": k, "error": f"out of memory: {str(e).splitlines()[0][:200]}"})
            torch.cuda.empty_cache()
            continue
        rows.append({"name": k, "us": round(us, 1), "peak_extra_bytes": peak,
                     "peak_extra_beyond_grad_bytes": peak - grad_bytes})
    return {"shape": list(CE_SHAPE), "dtype": "bfloat16", "bytes_floor": cross_entropy_bytes(CE_SHAPE, 2),
            "grad_bytes": grad_bytes, "rows": rows}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python benchmarks/training.py")
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeats", type=int, default=20)
    a = ap.parse_args(argv)
    import torch
    if not torch.cuda.is_available():
        print("benchmarks/training.py needs a CUDA GPU (it times forward + backward and reads peak memory)")
        return 2
    from grader.speed.timing import peak_gbps  # the GPU's HBM bandwidth, where the table knows it (H200)
    name = torch.cuda.get_device_name()
    peak = peak_gbps(name)
    started = time.time()
    out = {"device": name, "torch": torch.__version__, "date": time.strftime("%Y-%m-%d", time.gmtime()),
           "peak_gbs": peak}
    print(f"{name}: layernorm fwd+bwd {LN_SHAPE} float16, {a.repeats} runs")
    out["layernorm"] = layernorm_report(a.repeats, peak)
    for r in out["layernorm"]["rows"]:
        print(f"  {r['name']:32s} {r['us']:9.1f} µs  {r['gbs']:7.1f} GB/s  err {r['max_rel_error']:.1e}")
    for k, v in out["layernorm"]["ratios"].items():
        print(f"  {k}: {v['min']:.2f}..{v['max']:.2f} (median {v['median']:.2f})")
    print(f"cross-entropy fwd+bwd {CE_SHAPE} bfloat16")
    out["cross_entropy"] = cross_entropy_report()
    for r in out["cross_entropy"]["rows"]:
        print(f"  {r['name']:32s} " + (r.get("error") or f"{r['us']:9.1f} µs  peak extra "
                                       f"{r['peak_extra_bytes'] / 1e9:.2f} GB "
                                       f"({r['peak_extra_beyond_grad_bytes'] / 1e9:.2f} GB beyond the gradient)"))
    out["elapsed_s"] = round(time.time() - started, 1)
    Path(a.out).mkdir(parents=True, exist_ok=True)
    (Path(a.out) / "training.json").write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
