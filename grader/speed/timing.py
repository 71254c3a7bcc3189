"""The speed gate of fused drills, on CUDA only: is the learner's kernel really faster than eager, and is the time
believable?

Runs inside the CUDA child, after every correctness call passed, when the drill's spec has `speedup_min`.

- `triton.testing.do_bench(return_mode="median")` times each function (it zeroes a 256 MB buffer before every rep,
  so L2 is cold); candidate, eager and the spec's `speed_refs` alternate for ROUNDS rounds; the figure is the median
  of the per-round medians, so one noisy round cannot decide.
- Timing method: do_bench, or CUDA-graph replays for every row (`bench_graphed_ms`: device time, no host) when the
  spec has `grads` or `speed_graphed`; the report names the method.
- speedup = eager / candidate (or bar / candidate, the bar being the `speed_refs` row `spec.speed_bar` names:
  cuBLAS on a weight already in float16, beside a quantised GEMM); below `spec.speedup_min` -> `too-slow`.
- The device's copy bandwidth (read + write counted) is the faster of x.clone() and a Triton copy kernel at the same
  n (`best_copy`), measured once per device and size and cached in $DRILL_HOME/bandwidth.json. A candidate time below
  IMPOSSIBLE x (fused bytes / copy bandwidth) is not a real measurement (nothing was computed, or a cached result was
  returned) -> `impossible-time`.
- Percentages are of the GPU's spec bandwidth (`peak_gbps`, H200: 4.8 TB/s), the physical limit. Copy is a
  reference, not a limit: a kernel that reads more than it writes can stream a little faster than a 1:1 copy (H200:
  Triton add 4.29 TB/s vs clone 4.12 TB/s), so no figure is given as a percentage of copy.
- The output of the last timed call is checked against the float64 reference.
- At the spec's small_size (100 000 elements for 1-D drills): device time (do_bench) and host wall time per call of candidate and eager. When they
  disagree on which is faster, the call is launch-bound: Python's launch costs more than the kernel.

The pure parts (medians, the verdict, the bandwidth cache) are plain functions, tested on CPU with fake timings.
"""
from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path

from grader.core import catalog
from grader.core.data import draw, numel_of, size_label
from grader.families import registry

ROUNDS = 5
WARMUP_MS, REP_MS = 10, 40      # per do_bench call; 5 rounds x 3 rows x ~60 ms keeps the gate near 1-2 s
WALL_CALLS = 200
# A Triton streaming kernel measured 4.29 TB/s against a clone's 4.12 TB/s on the H200 (104 %): kernels can beat a
# copy a little, so "impossible" starts well above that, at 1 / 0.8 = 125 % of the measured copy bandwidth.
IMPOSSIBLE = 0.8
CANDIDATE, EAGER, REF = "candidate", "eager", "ref"
# Spec memory bandwidth (GB/s, read + write together) of the GPUs this project measured on; for another GPU set
# DRILL_PEAK_GBPS. NVIDIA H200 (SXM and NVL): 4.8 TB/s HBM3e.
PEAK_GBPS = {"H200": 4800.0}


# -- pure parts ----------------------------------------------------------------------------------------------------
def median_of_medians(per_round: list[float]) -> float:
    """The figure for one function: the median of its per-round do_bench medians (no rounds: statistics' own
    StatisticsError, a ValueError)."""
    return float(statistics.median(per_round))


def spread(per_round: list[float]) -> float:
    """(max - min) / median of the per-round medians: how much the rounds disagreed."""
    m = median_of_medians(per_round)
    return (max(per_round) - min(per_round)) / m if m > 0 else 0.0


def gbps(nbytes: float, seconds: float) -> float:
    return nbytes / seconds / 1e9 if seconds > 0 else float("inf")


def speed_verdict(cand_s: float, eager_s: float, fused_bytes: float | None, copy_bw: float | None,
                  speedup_min: float | None, impossible: float = IMPOSSIBLE) -> dict:
    """Times (seconds) -> {category, speedup, floor_s}. impossible-time wins over too-slow: it says the timing is
    not evidence at all."""
    speedup = eager_s / cand_s if cand_s > 0 else float("inf")
    floor_s = fused_bytes / copy_bw if fused_bytes and copy_bw else None
    category = None
    if cand_s <= 0 or (floor_s is not None and cand_s < impossible * floor_s):
        category = "impossible-time"
    elif speedup_min is not None and speedup < speedup_min:
        category = "too-slow"
    return {"category": category, "speedup": speedup, "speedup_min": speedup_min, "floor_s": floor_s}


def peak_gbps(device_name: str) -> float | None:
    """The GPU's spec bandwidth in GB/s: $DRILL_PEAK_GBPS, else PEAK_GBPS by name, else None (unknown)."""
    env = os.environ.get("DRILL_PEAK_GBPS")
    if env:
        try:
            value = float(env)
            if value > 0:
                return value
        except ValueError:
            pass
    return next((v for key, v in PEAK_GBPS.items() if key in (device_name or "")), None)


# Dense (no sparsity) fp16/bf16 tensor-core peak, TFLOPS, from NVIDIA's data sheets; DRILL_PEAK_TFLOPS overrides.
PEAK_TFLOPS = {"H200": 989.4, "H100": 989.4, "A100": 312.0}


def peak_tflops(device_name: str) -> float | None:
    env = os.environ.get("DRILL_PEAK_TFLOPS")
    try:
        if env and float(env) > 0:
            return float(env)
    except ValueError:
        pass
    return next((v for key, v in PEAK_TFLOPS.items() if key in (device_name or "")), None)


def pct_of_peak(gbps_value: float | None, peak: float | None) -> float | None:
    return None if gbps_value is None or not peak else 100.0 * gbps_value / peak


def format_pct(pct: float | None) -> str:
    """A percentage of a physical limit as shown: never above 100 %. A figure that would be is not a measurement of
    the work (a cached result, data served from L2): shown as '!' and explained beside the table."""
    if pct is None:
        return "—"
    return "!" if pct > 100.0 else f"{pct:.0f}%"


def launch_bound(device_cand: float, device_eager: float, wall_cand: float, wall_eager: float) -> bool:
    """Device time and host wall time disagree on which one is faster."""
    return (device_cand < device_eager) != (wall_cand < wall_eager)


def bandwidth_path() -> Path:
    from grader.core.files import home
    return home() / "bandwidth.json"


def _key(device_name: str, n: int, torch_version: str) -> str:
    return f"{device_name} | n={n} | torch {torch_version} | best copy"  # not the clone-only figures of before


def cached_bandwidth(path: Path, device_name: str, n: int, torch_version: str) -> float | None:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        value = float(data[_key(device_name, n, torch_version)]["bytes_per_s"])
        return value if value > 0 else None
    except (OSError, ValueError, KeyError, TypeError):
        return None  # missing or corrupt: measure again


def store_bandwidth(path: Path, device_name: str, n: int, torch_version: str, bytes_per_s: float) -> None:
    from grader.core.files import atomic_write_text
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    data[_key(device_name, n, torch_version)] = {"bytes_per_s": bytes_per_s, "measured": time.strftime("%Y-%m-%d")}
    try:
        atomic_write_text(path, json.dumps(data, indent=1))
    except OSError:
        pass  # a cache: losing it costs one measurement next time


def progress_writer():
    """Progress lines go to the parent's terminal (fd from DRILL_PROGRESS_FD), else to our stderr."""
    fd = os.environ.get("DRILL_PROGRESS_FD")
    stream = None
    if fd:
        try:
            stream = os.fdopen(int(fd), "w", buffering=1, closefd=False)
        except (OSError, ValueError):
            stream = None

    from grader.reporting.i18n import resolve_lang

    lang = resolve_lang()  # the CLI's --lang, passed down as DRILL_LANG

    def say(msg: str) -> None:
        import sys
        try:
            print(catalog.text("progress.line", lang, text=catalog.from_english("progress", msg, lang)
                               or msg), file=stream or sys.stderr, flush=True)
        except OSError:
            pass
    return say


# -- CUDA parts (run only on a GPU; kept small) ---------------------------------------------------------------------
def bench_ms(fn, warmup=WARMUP_MS, rep=REP_MS) -> float:
    from triton.testing import do_bench
    return float(do_bench(fn, warmup=warmup, rep=rep, return_mode="median"))


GRAPH_REPLAYS = 20
FLUSH_BYTES = 256 * 2**20  # as do_bench: L2 is cleared before every timed call


def bench_graphed_ms(fn, replays: int = GRAPH_REPLAYS) -> float:
    """Device time of fn (ms) without the host: fn is captured once in a CUDA graph behind an L2 flush, the graph is
    replayed `replays` times, and the median of a flush-only graph's replays is subtracted.

    For calls whose host side costs more than their kernels (an autograd forward + backward in Python launches
    several kernels and runs the engine: ~400 µs of host time per step on the H200's host, against ~100 µs of
    kernels), do_bench measures the host. Raises whatever capture raises (a call that synchronises, or copies to
    the host, cannot be captured): callers fall back to bench_ms."""
    import torch
    cache = torch.empty(FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")

    def median_replay(body) -> float:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm up off the default stream, as torch.cuda.graphs asks
            for _ in range(3):
                body()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            body()
        graph.replay()
        torch.cuda.synchronize()
        times = []
        for _ in range(replays):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            graph.replay()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        del graph
        return float(statistics.median(times))

    def flushed():
        cache.zero_()
        fn()

    return max(median_replay(flushed) - median_replay(cache.zero_), 0.0)


def best_copy(n: int, rounds: int = 1, warmup=WARMUP_MS, rep=REP_MS, device: str = "cuda") -> dict:
    """The faster of x.clone() and a Triton copy kernel (each config in grader.speed.copy_kernel) at n float32:
    {kind, ms, gbps (read + write counted), all_ms}."""
    import torch

    from grader.speed import copy_kernel

    CONFIGS, triton_copy = copy_kernel.CONFIGS, copy_kernel.triton_copy
    x = torch.empty(n, device=device, dtype=torch.float32).normal_()
    out = torch.empty_like(x)
    copies = {"x.clone()": lambda: x.clone()}
    for block, warps in CONFIGS:
        copies[f"Triton copy (BLOCK {block}, {warps} warps)"] = \
            lambda b=block, w=warps: triton_copy(x, out, b, w)
    all_ms = {kind: median_of_medians([bench_ms(fn, warmup=warmup, rep=rep) for _ in range(rounds)])
              for kind, fn in copies.items()}
    kind = min(all_ms, key=all_ms.get)
    del x, out
    return {"kind": kind, "ms": all_ms[kind], "gbps": gbps(2 * n * 4, all_ms[kind] / 1e3), "all_ms": all_ms}


def copy_bandwidth(n: int, device_name: str, say) -> tuple[float, bool]:
    """Bytes per second of the best copy at n float32 (read + write), cached per device, size and torch version."""
    import torch
    path = bandwidth_path()
    cached = cached_bandwidth(path, device_name, n, torch.__version__)
    if cached:
        return cached, True
    say(catalog.text("progress.copy_bandwidth", "en", n=f"{n:,}"))
    copy = best_copy(n, rounds=ROUNDS)
    bw = copy["gbps"] * 1e9
    store_bandwidth(path, device_name, n, torch.__version__, bw)
    return bw, False


def _sync(device: str) -> None:
    if device == "cuda":
        import torch
        torch.cuda.synchronize()


def wall_per_call_s(fn, calls: int = WALL_CALLS, device: str = "cuda") -> float:
    for _ in range(10):
        fn()
    _sync(device)
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    _sync(device)
    return (time.perf_counter() - t0) / calls


def timed_calls(spec, entry, args, kwargs: dict) -> dict:
    """{CANDIDATE, EAGER, each speed_ref's label: a no-argument call}. A family may time a whole step instead of the
    forward (its `timed_steps` hook: a training drill's forward and backward); the others call the forward."""
    import inspect

    fns = {CANDIDATE: entry, EAGER: spec.eager, **dict(spec.speed_refs)}
    steps = registry.first(spec, "timed_steps", spec, fns, args, list(inspect.signature(entry).parameters), kwargs)
    if steps is not None:
        return steps
    return {k: (lambda f=f: f(*args, **kwargs)) for k, f in fns.items()}


def times_device(spec) -> bool:
    """Whether the drill's calls are timed as device time (CUDA-graph replays): a forward + backward step (several
    launches and the autograd engine per call), or a spec that asks for it. The gate and `drill bench` both ask."""
    return spec.grads is not None or spec.speed_graphed


def graphed_or_plain(rows, say) -> tuple:
    """(bench, method): CUDA-graph replays (bench_graphed_ms) when every row's call can be captured, else do_bench
    for all rows (the same method for every row, so the ratio stays fair), the reason said."""
    for label, _, fn in rows:
        try:
            bench_graphed_ms(fn, replays=2)
        except Exception as e:  # noqa: BLE001 - any capture failure means: time with the host included
            say(catalog.text("progress.not_capturable", "en", label=label, error=type(e).__name__))
            import torch
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            return bench_ms, catalog.text("check_details.method_plain", "en", label=label)
    return bench_graphed_ms, catalog.text("check_details.method_graphed", "en")


def speed_report(spec, entry, device_name: str, say=None, device: str = "cuda", small: bool = True) -> dict:
    """The whole gate for one learner entry point; returns plain JSON-able data (see the module docstring).

    `device` is "cuda" in the grader; tests run the data flow on "cpu" with bench_ms / copy_bandwidth faked.
    small=False skips the small size's device and wall times (the report's "small" is then None): they inform the
    report's launch-bound line, never the verdict, and a calibration that repeats the gate 20 times skips them."""
    import torch

    from grader.judge.evaluate import count_wrong

    say = say or progress_writer()
    size = spec.bench_size  # a numel (1-D drills) or a shape (row kernels)
    n = numel_of(size)
    kwargs = spec.kwargs if spec.bench_kwargs is None else spec.bench_kwargs
    args = draw(spec, size, 12345, device, spec.bench_inputs)
    model = spec.byte_model(size) if spec.byte_model else None
    # Without a byte model's "fused": read every input once, write one output like the first input.
    fused_bytes = model["fused"] if model and model.get("fused") else \
        sum(t.numel() * t.element_size() for t in args) + args[0].numel() * args[0].element_size()
    # Compute-bound drills (spec.flops) are judged in FLOP/s against the tensor-core peak, not against a copy
    # (and their shape's element count, 4096^3 for a GEMM, is no buffer to copy).
    flops = spec.flops(size) if spec.flops else None
    # A shape whose element count is no buffer the kernel moves (decode's (B, H, H_kv, D, PAGE, L)): the copy
    # reference moves the kernel's own bytes instead.
    n_copy = n if n * 4 <= 8 * fused_bytes else max(1, int(fused_bytes) // 8)
    bw, bw_cached = (None, False) if flops else copy_bandwidth(n_copy, device_name, say)

    # An entry that may overwrite an input with its gradient (a check's `in_place`: Liger's fused loss writes
    # over the logits) leaves the inputs spoilt after the timed steps: its values are checked on fresh copies.
    in_place = bool(getattr(spec.grads, "in_place", None)) if spec.grads is not None else False
    pristine = [a.detach().clone() if isinstance(a, torch.Tensor) else a for a in args] if in_place else None
    last = {}
    calls = timed_calls(spec, entry, args, kwargs)
    cand_call = calls[CANDIDATE]

    def candidate():
        last["out"] = cand_call()

    rows = [(f"your `{spec.entry}`", CANDIDATE, candidate), ("eager PyTorch", EAGER, calls[EAGER])]
    rows += [(label, REF, calls[label]) for label, _ in spec.speed_refs]
    bench, method = bench_ms, "do_bench"
    if times_device(spec):
        bench, method = graphed_or_plain(rows, say)
    per_round = {label: [] for label, _, _ in rows}
    for r in range(ROUNDS):
        say(catalog.text("progress.round", "en", at=size_label(size), r=r + 1, rounds=ROUNDS))
        for label, _, fn in rows:
            per_round[label].append(bench(fn))
    out = last.get("out")
    if spec.grads is not None and out is not None:
        out = out.detach()
    _sync(device)
    checked = args
    if pristine is not None:
        fresh = [a.clone().requires_grad_(a.is_floating_point()) if isinstance(a, torch.Tensor) else a
                 for a in pristine]
        out, checked = entry(*fresh, **kwargs).detach(), pristine
        _sync(device)
    wrong, out_numel = count_wrong(spec, checked, out, kwargs)  # "k of N elements differ": N is the output's, not 4096^3
    peak = peak_gbps(device_name)
    peak_flops = peak_tflops(device_name) if flops else None
    table = []
    for label, role, _ in rows:
        ms = median_of_medians(per_round[label])
        g = gbps(fused_bytes, ms / 1e3)
        row = {"label": label, "role": role, "ms": ms, "medians_ms": per_round[label],
               "spread": spread(per_round[label]), "gbps": g, "pct_peak": pct_of_peak(g, peak)}
        if flops:
            row["tflops"] = flops / (ms / 1e3) / 1e12
            row["pct_peak"] = pct_of_peak(row["tflops"], peak_flops)
        table.append(row)
    bar = next((i for i, r in enumerate(table) if spec.speed_bar and r["label"] == spec.speed_bar), 1)
    cand_s, bar_s = table[0]["ms"] / 1e3, table[bar]["ms"] / 1e3
    verdict = speed_verdict(cand_s, bar_s, fused_bytes, bw, spec.speedup_min)
    verdict["bar"] = table[bar]["label"] if bar != 1 else None  # None: the gate is against eager
    if flops and peak_flops:  # faster than the tensor cores can multiply: nothing was computed
        verdict["floor_s"] = flops / (peak_flops * 1e12)
        if cand_s < IMPOSSIBLE * verdict["floor_s"]:
            verdict["category"] = "impossible-time"
    if wrong > 0:
        verdict["category"] = "wrong-values"

    small_part = _small_times(spec, entry, kwargs, device, say) if small else None
    at = size_label(size) + (f" ({', '.join(f'{k}={v}' for k, v in spec.bench_kwargs.items())})"
                             if spec.bench_kwargs else "")
    return {"n": n, "size": size, "at": at, "rounds": ROUNDS, "rows": table, "byte_model": model,
            "fused_bytes": fused_bytes, "copy_gbps": bw / 1e9 if bw else None, "copy_cached": bw_cached,
            "peak_gbps": peak, "wrong": wrong, "out_numel": out_numel, "small": small_part, "flops": flops,
            "peak_tflops": peak_flops, "impossible_factor": IMPOSSIBLE, "method": method,
            "graphed": bench is bench_graphed_ms, **verdict}


def _small_times(spec, entry, kwargs, device, say) -> dict:
    """Device time and host wall time per call at spec.small_size, the candidate beside eager (launch-bound?)."""
    small_n = numel_of(spec.small_size)
    say(catalog.text("progress.small_size", "en", at=size_label(spec.small_size)))
    small_args = draw(spec, spec.small_size, 12346, device, spec.bench_inputs)
    small = {"n": small_n, "at": size_label(spec.small_size), "device_us": {}, "wall_us": {}}
    fns = {role: fn for role, fn in timed_calls(spec, entry, small_args, kwargs).items() if role in (CANDIDATE, EAGER)}
    for role, fn in fns.items():
        small["device_us"][role] = 1e3 * median_of_medians([bench_ms(fn) for _ in range(3)])
        small["wall_us"][role] = 1e6 * wall_per_call_s(fn, device=device)
    small["launch_bound"] = launch_bound(small["device_us"][CANDIDATE], small["device_us"][EAGER],
                                         small["wall_us"][CANDIDATE], small["wall_us"][EAGER])
    return small
