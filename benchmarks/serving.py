"""Speed of the serving drills on this GPU, side by side in one run, and how reliable their gates would be (benchmark,
not a test). Issue 22's "Speed" section. The decode and quant gates rest on one H200 run of 3 rounds
(docs/serving.md); `--repeats 20` is their calibration.

    PYTHONPATH=. python benchmarks/serving.py [--out DIR] [--repeats 20] [--cases decode,quant,conv]

Each case times the drill's reference solution, the baselines the issue names and a known-slow version, all on the
same inputs, alternating within each round (grader.speed.timing: ROUNDS do_bench medians per function, median of
them), `--repeats` times; per function it reports the median and the run-to-run spread (max - min) / median, and
per gate how many of the runs pass:
  decode   the grader's gate as `drill grade --device cuda` times it: the spec's bench_size (32 sequences, 32 query
           and 32 KV heads, D = 128, every sequence 4096 tokens, pages of 16 in random physical order, one spare
           table column) and inputs; effective KV bandwidth (K and V bytes read / time) against the 4.8 TB/s spec
           and against F.scaled_dot_product_attention on the same K and V copied once into (B, H_kv, L, D) (the
           spec's speed_refs row); the eager baseline is the spec's: gather the pages, then SDPA with the seq_lens
           mask. gates: the spec's speedup_min against its bar ([the grader's gate]) and the issue's other one.
  quant    M in {1, 16, 128, 4096}, N = K = 8192, group 128, the spec's inputs: against cuBLAS on the float16 weight
           (dequantised once, outside the timing: the spec's speed_refs row and its speed_bar), against eager
           dequant-then-matmul, and against the bytes floor (a, the packed weight, the scales and c moved once at
           4.8 TB/s). gates: QUANT_GATES by M, and at the spec's bench_size its speedup_min ([the grader's gate]).
  conv     x (32, 256, 56, 56) -> 256 channels, 3x3, padding 1, fp16 channels-last: TFLOPS against cuDNN
           (F.conv2d, channels-last x and w) and against the spec's eager (F.conv2d(x, w) with w as the drill gives
           it, (K, C, R, S) contiguous: what `drill grade`'s speed gate times). gates: reference and known-slow >=
           the spec's speedup_min x each (issue 22: 0.5).
Known-slow versions (each correct; the gate must fail them 20/20 to be worth anything):
  decode  tests/submissions/correct/decode_one_launch_no_split.py   (no split: B·H programs, one page per step)
  quant   benchmarks/known_slow/quant_matmul_tiny_tiles.py          (16x16x16 tiles, one stage)
  conv    benchmarks/known_slow/conv_raw_weight_layout.py           (w read at its (K, C, R, S) strides: B gathers)
Every timed version is checked once against a float32 torch result before it is timed. Prints tables and writes
DIR/serving.json.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.tensor_cores import SLOW_MS, gate_run, load_entry, max_rel_error, one_call_ms  # noqa: E402

SPEC_TBPS = 4.8  # H200 HBM3e
KNOWN_SLOW = {
    "decode": ROOT / "tests" / "submissions" / "correct" / "decode_one_launch_no_split.py",
    "quant": ROOT / "benchmarks" / "known_slow" / "quant_matmul_tiny_tiles.py",
    "conv": ROOT / "benchmarks" / "known_slow" / "conv_raw_weight_layout.py",
}
# The gates the grader does not apply (it times one size against one bar), checked here on the same runs.
DECODE_SDPA_FACTOR = 0.8    # decode: the reference's KV bandwidth >= this x SDPA's on a contiguous copy
DECODE_EAGER_FACTOR = 3.0   # decode, when the grader's bar is SDPA: the reference >= this x eager
# quant: the reference >= this x cuBLAS on the float16 weight, by M. The issue asked 2 x at M <= 16 and 0.6 x at
# M = 4096; the H200 figures support these (docs/serving.md, speed batch 3, 10 runs of this script): the reference
# of then (benchmarks/candidates/quant_matmul_k2.py since round 4) 0.86..1.16 x at M = 1, 1.14..1.17 x at 16 (20
# runs of the grader's gate), 0.44..0.49 x at 4096; the known-slow version 0.156 x, 0.158 x and 0.052 x.
QUANT_GATES = {1: 0.6, 16: 0.6, 4096: 0.3}
QUANT_M = (1, 16, 128, 4096)
QUANT_NK, QUANT_GROUP = 8192, 128
CONV_SHAPE = {"N": 32, "C": 256, "H": 56, "W": 56, "K": 256, "R": 3, "S": 3, "stride": 1, "padding": 1}


# -- pure parts (tests/test_serving.py runs these without a GPU) -----------------------------------------------------
def decode_kv_bytes(B, H_kv, L, D, elem=2) -> int:
    """K and V of every sequence read once: what decode attention must move."""
    return 2 * B * L * H_kv * D * elem


def quant_floor_bytes(M, N, K, group=QUANT_GROUP) -> int:
    """a (M, K) fp16, the packed weight (K / 2 bytes per column), the fp16 scales and c (M, N) fp16, each once."""
    return M * K * 2 + (K // 2) * N + (K // group) * N * 2 + M * N * 2


def conv_flops(N, C, H, W, K, R, S, stride=1, padding=0) -> int:
    P = (H + 2 * padding - R) // stride + 1
    Q = (W + 2 * padding - S) // stride + 1
    return 2 * N * K * P * Q * C * R * S


def spread(values) -> float:
    """(max - min) / median across runs."""
    med = statistics.median(values)
    return (max(values) - min(values)) / med if med > 0 else 0.0


def gate(runs: list[dict], candidate: str, bar: str, factor: float, grader: bool = False) -> dict:
    """How often `candidate` was at least `factor` x as fast as `bar` (times in ms, one dict per run); grader: this
    is the gate `drill grade --device cuda` applies (the spec's speedup_min at its bench_size)."""
    ratios = [r[bar] / r[candidate] for r in runs]
    return {"candidate": candidate, "bar": bar, "factor": factor, "passed": sum(x >= factor for x in ratios),
            "runs": len(ratios), "ratio_median": statistics.median(ratios), "ratio_min": min(ratios),
            "ratio_max": max(ratios), "grader": grader}


def summarise(runs: list[dict]) -> dict:
    labels = runs[0].keys()
    return {label: {"median_ms": statistics.median(r[label] for r in runs),
                    "spread": spread([r[label] for r in runs])} for label in labels}


# -- CUDA parts ------------------------------------------------------------------------------------------------------
def timed(name: str, fns: dict, repeats: int) -> list[dict]:
    from grader.speed.timing import ROUNDS

    slow = {label for label, f in fns.items() if one_call_ms(f) > SLOW_MS}
    runs = []
    for r in range(repeats):
        ms = gate_run(fns, ROUNDS, slow)
        runs.append(ms)
        print(f"  {name:8} run {r + 1:2}/{repeats}: " + ", ".join(f"{k} {v * 1e3:.1f} us" for k, v in ms.items()),
              flush=True)
    return runs


def checked(label: str, fn, expected, tol: float = 2e-2) -> float:
    import torch
    out = fn()
    torch.cuda.synchronize()
    err = max_rel_error(out, expected)
    print(f"    {label:28} max relative error {err:.2e}" + ("" if err <= tol else "  << WRONG"), flush=True)
    return err


def _spec_inputs(name: str, size) -> list:
    """The inputs `drill grade --device cuda` times its gate on: the spec's own maker at `size`, drawn on the GPU."""
    import torch

    import drills
    gen = torch.Generator(device="cuda").manual_seed(0)
    return [t.to("cuda") for t in drills.get_spec(name).make_inputs(size, gen)]


def decode_case(repeats: int) -> dict:
    """What the grader's gate times (drill grade --device cuda): the spec's bench_size and inputs (32 sequences of
    4096 tokens, pages of 16 in random physical order, one spare table column), the spec's eager (gather the pages,
    then SDPA with the seq_lens mask) and its speed_refs row (SDPA on a contiguous copy, made once)."""
    import drills
    from drills import serving_specs as S

    spec = drills.get_spec("decode-attention")
    size = spec.bench_size
    q, k_cache, v_cache, table, lens = args = _spec_inputs(spec.name, size)
    ref = load_entry(ROOT / "solutions" / "decode_attention.py", "decode_attention")
    slow = load_entry(KNOWN_SLOW["decode"], "decode_attention")
    fns = {"reference": lambda: ref(*args), "known-slow": lambda: slow(*args),
           "sdpa": lambda: S._decode_sdpa_contiguous(*args), "eager": lambda: spec.eager(*args)}
    expected = spec.eager(q.float(), k_cache.float(), v_cache.float(), table, lens)
    errors = {label: checked(label, f, expected) for label, f in fns.items()}
    runs = timed("decode", fns, repeats)
    nbytes = S._decode_bytes(size)["fused"]
    summary = summarise(runs)
    for label, row in summary.items():
        row["tbps"] = nbytes / (row["median_ms"] / 1e3) / 1e12
        row["pct_spec"] = 100 * row["tbps"] / SPEC_TBPS
    bar = "sdpa" if spec.speed_bar == S.DECODE_SDPA else "eager"
    gates = [gate(runs, v, bar, spec.speedup_min, grader=True) for v in ("reference", "known-slow")]
    other = ("eager", DECODE_EAGER_FACTOR) if bar == "sdpa" else ("sdpa", DECODE_SDPA_FACTOR)
    gates += [gate(runs, v, other[0], other[1]) for v in ("reference", "known-slow")]
    return {"case": "decode", "shape": dict(zip(("B", "H", "H_kv", "D", "page", "L", "L_min"), size)),
            "kv_bytes": nbytes, "errors": errors, "summary": summary, "gates": gates, "runs": runs}


def quant_case(repeats: int, ms=QUANT_M) -> list[dict]:
    """At M in QUANT_M (N = K = 8192, group 128), the spec's inputs; the bar is the spec's speed_refs row (cuBLAS on
    the float16 weight, dequantised once); at the spec's bench_size the grader's own gate (speedup_min)."""
    import torch

    import drills
    from drills import serving_specs as S

    spec = drills.get_spec("quant-matmul")
    ref = load_entry(ROOT / "solutions" / "quant_matmul.py", "matmul_w4a16")
    slow = load_entry(KNOWN_SLOW["quant"], "matmul_w4a16")
    out = []
    for M in ms:
        N, K = QUANT_NK, QUANT_NK
        a, w_packed, scales = args = _spec_inputs(spec.name, (M, N, K))
        fns = {"reference": lambda: ref(*args, QUANT_GROUP),
               "known-slow": lambda: slow(*args, QUANT_GROUP),
               "cublas": lambda: S._w4a16_cublas(*args, QUANT_GROUP),
               "eager": lambda: spec.eager(*args, QUANT_GROUP)}
        expected = a.float() @ S._dequant_fp16(w_packed, scales, QUANT_GROUP).float()
        print(f"  quant M = {M}", flush=True)
        errors = {label: checked(label, f, expected) for label, f in fns.items()}
        runs = timed(f"quant{M}", fns, repeats)
        floor_us = quant_floor_bytes(M, N, K) / (SPEC_TBPS * 1e12) * 1e6
        grader = (M, N, K) == tuple(spec.bench_size)
        factor = spec.speedup_min if grader else QUANT_GATES.get(M)
        gates = [gate(runs, v, "cublas", factor, grader=grader) for v in ("reference", "known-slow")] if factor \
            else []
        summary = summarise(runs)
        for row in summary.values():
            row["x_floor"] = row["median_ms"] * 1e3 / floor_us
            row["tflops"] = 2 * M * N * K / (row["median_ms"] / 1e3) / 1e12
        out.append({"case": "quant", "M": M, "N": N, "K": K, "bytes_floor_us": floor_us, "errors": errors,
                    "summary": summary, "gates": gates, "runs": runs})
        del a, w_packed, scales, args
        torch.cuda.empty_cache()
    return out


def conv_case(repeats: int) -> dict:
    import torch
    import torch.nn.functional as F

    from drills import get_spec

    spec = get_spec("conv2d")
    s = CONV_SHAPE
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(s["N"], s["C"], s["H"], s["W"], generator=g, device="cuda", dtype=torch.float16)
    x = x.contiguous(memory_format=torch.channels_last)
    w = (torch.randn(s["K"], s["C"], s["R"], s["S"], generator=g, device="cuda", dtype=torch.float16) * 0.05)
    w_cl = w.contiguous(memory_format=torch.channels_last)
    torch.backends.cudnn.benchmark = True
    ref = load_entry(ROOT / "solutions" / "conv2d.py", "conv2d")
    slow = load_entry(KNOWN_SLOW["conv"], "conv2d")
    kw = {"stride": s["stride"], "padding": s["padding"]}
    fns = {"reference": lambda: ref(x, w, **kw), "known-slow": lambda: slow(x, w, **kw),
           "cudnn": lambda: F.conv2d(x, w_cl, **kw), "eager": lambda: spec.eager(x, w, **kw)}
    expected = F.conv2d(x.float(), w.float(), **kw)
    errors = {label: checked(label, f, expected) for label, f in fns.items()}
    runs = timed("conv", fns, repeats)
    flops = conv_flops(s["N"], s["C"], s["H"], s["W"], s["K"], s["R"], s["S"], s["stride"], s["padding"])
    summary = summarise(runs)
    for row in summary.values():
        row["tflops"] = flops / (row["median_ms"] / 1e3) / 1e12
    factor = spec.speedup_min or 0.5
    gates = [gate(runs, v, bar, factor) for bar in ("eager", "cudnn") for v in ("reference", "known-slow")]
    return {"case": "conv", "shape": s, "flops": flops, "errors": errors, "summary": summary, "gates": gates,
            "runs": runs}


def print_case(c: dict) -> None:
    title = c["case"] + (f" M={c['M']}" if "M" in c else "")
    print(f"\n{title}")
    for label, row in c["summary"].items():
        extra = "".join(f"  {k} {v:.2f}" for k, v in row.items() if k not in ("median_ms", "spread"))
        print(f"  {label:12} {row['median_ms'] * 1e3:10.1f} us  spread {100 * row['spread']:5.1f} %{extra}")
    for gt in c["gates"]:
        print(f"  gate {gt['candidate']:10} >= {gt['factor']} x {gt['bar']}: {gt['passed']}/{gt['runs']} runs pass "
              f"(ratio {gt['ratio_min']:.3f} .. {gt['ratio_max']:.3f}, median {gt['ratio_median']:.3f})"
              + ("  [the grader's gate]" if gt.get("grader") else "  [benchmark only]"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="/tmp/drill-serving", help="where serving.json goes (default /tmp/drill-serving)")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--cases", default="decode,quant,conv")
    ap.add_argument("--quant-m", default=",".join(map(str, QUANT_M)), help="quant: the M values (default: all four)")
    a = ap.parse_args()
    import torch
    import triton

    if not torch.cuda.is_available():
        print("serving.py needs a CUDA GPU; nothing measured")
        return 2
    report = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
              "repeats": a.repeats, "cases": []}
    cases = a.cases.split(",")
    if "decode" in cases:
        report["cases"].append(decode_case(a.repeats))
    if "quant" in cases:
        report["cases"] += quant_case(a.repeats, tuple(int(m) for m in a.quant_m.split(",")))
    if "conv" in cases:
        report["cases"].append(conv_case(a.repeats))
    print(f"\n{report['device']}, torch {report['torch']}, triton {report['triton']}, {a.repeats} runs")
    for c in report["cases"]:
        print_case(c)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "serving.json").write_text(json.dumps(report, indent=1, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
