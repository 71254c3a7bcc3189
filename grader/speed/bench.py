"""`drill bench FILE`: a size sweep of the learner's kernel against eager PyTorch and torch.compile (CUDA only),
like Triton's tutorial-01 benchmark: two tables (time, bandwidth), and a GB/s-vs-size plot when matplotlib is there.

The parent (`sweep`, `tables`, `plot`) never imports the learner's file; the child (`python -m grader.speed.bench --child
...`) does, times with `triton.testing.do_bench(return_mode="median")` (L2 flushed) and writes JSON. Drills whose speed
gate times device time (a training drill's forward + backward, `spec.speed_graphed`) are timed as the gate times
them: CUDA-graph replays of every provider when all can be captured at that size (`timing.graphed_or_plain`),
else do_bench for all; each row records its method and the table's caption says it.

What each column is, so that an expert can trust it:
- "compile": `torch.compile(eager, dynamic=False)` compiled afresh at each n (Dynamo's caches reset first): the
  kernel a program with that fixed shape gets.
- "compile†": ONE `torch.compile(eager)` called at every n in turn, as a naive sweep does. From the second size
  Dynamo recompiles with dynamic shapes (automatic_dynamic_shapes) and every later size runs that one dynamic
  kernel, which can be much slower (H200, relu(x + y) at 2^26, 2026-11-29: 322 µs dynamic vs 190 µs static, eager
  318 µs; a re-run on 2026-11-30 measured 191 vs 189 µs: the gap depends on which sizes the sweep compiled at).
- GB/s is effective bandwidth: the drill's fused byte model (or inputs + one output) / time.
- "copy": at the same n (for a shape: a copy moving the same bytes), the faster of `x.clone()` and a Triton copy
  kernel (read + write counted); which one won is in the JSON and under the table. Copy is a reference, not a limit (a kernel that reads more than it writes
  can stream a little faster than a 1:1 copy).
- "% peak": of the GPU's spec bandwidth (grader.speed.timing.peak_gbps, H200 4.8 TB/s), the physical limit. Nothing is
  shown above 100 %: a time that would be is not a measurement of the work, and is marked "!".

Drills whose sizes are shapes sweep shapes (`spec.bench_sizes`, or `--sizes 1024x1024x1024,...`). Compute-bound
drills (`spec.flops`) are shown in TFLOPS instead of GB/s: "% peak" is of the
GPU's dense fp16 tensor-core peak (grader.speed.timing.peak_tflops), and "% <bar>" is yours as a share of the library
kernel the drill is measured against (the last of `spec.speed_refs`, else eager: cuBLAS for a GEMM, SDPA for
scaled dot-product). No copy is timed for them: a GEMM is not limited by bytes. The "compile†" sweep runs for 1-D sizes
only (the dynamic-shape lesson is about n).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from grader.core import catalog
from grader.core.data import draw, numel_of, size_label
from grader.core.files import atomic_write_text
from grader.reporting.i18n import resolve_lang

DEFAULT_SIZES = tuple(2 ** i for i in range(12, 28))
CANDIDATE, EAGER, STATIC, DYNAMIC = "yours", "eager", "compile", "compile†"


# -- parent ---------------------------------------------------------------------------------------------------------
def default_sizes(spec) -> list:
    """The drill's own sweep (`bench_sizes`), else 2^12..2^27 for 1-D drills, else its CUDA sizes."""
    if spec.bench_sizes:
        return list(spec.bench_sizes)
    if isinstance(spec.sizes[0], int):
        return list(DEFAULT_SIZES)
    return list(spec.cuda_sizes) or [spec.bench_size]


def sweep(path: Path, drill: str, sizes, timeout: float = 900.0) -> dict:
    """Run the child; its progress goes to our stderr. Returns the child's JSON (or {"error": ...})."""
    from grader.run.proc import child_env, kill_group, reaped, scratch_dir, spawn

    with scratch_dir("drill-bench-") as work:
        out = os.path.join(work, "bench.json")
        cmd = [sys.executable, "-m", "grader.speed.bench", "--child", "--file", str(path), "--drill", drill, "--out", out,
               "--sizes", json.dumps([s if isinstance(s, int) else list(s) for s in sizes])]
        env = child_env()
        env.pop("TRITON_INTERPRET", None)
        proc = spawn(cmd, cwd=str(Path(path).parent), env=env, stdin=subprocess.DEVNULL, stdout=sys.stderr,
                     stderr=sys.stderr)
        try:
            proc.wait(timeout=timeout)
            reaped(proc)
        except subprocess.TimeoutExpired:
            kill_group(proc)  # the learner's kernel and anything it started
            return {"error": catalog.text("coach.bench.sweep_timeout", resolve_lang(), seconds=f"{timeout:.0f}")}
        except BaseException:  # Ctrl-C (or SIGTERM turned into an exception): the child has its own session
            kill_group(proc)
            raise
        if not os.path.exists(out):
            return {"error": catalog.text("coach.bench.sweep_died", resolve_lang(), code=proc.returncode)}
        with open(out, encoding="utf-8") as f:
            return json.load(f)


def _us(ms) -> str:
    return "—" if ms is None else f"{ms * 1e3:.1f}"


def _short(label: str, refs: list[str]) -> str:
    """Column headers stay narrow (tables must fit 80 columns when piped): a long reference label becomes ref1.."""
    return label if len(label) <= 9 else f"ref{refs.index(label) + 1}"


def _row_label(row: dict) -> str:
    label = row.get("label") or f"{row['n']:,}"
    return label + (" ✗" if row.get("wrong") else " ?" if row.get("wrong", 0) is None else "")


def tables(result: dict, lang: str = "en") -> list[tuple[str, list[str], list[list[str]]]]:
    """[(title, head, rows)]: time per provider, then bandwidth (yours, eager, compile, copy, % peak), or for a
    compute-bound drill TFLOPS (every provider, % of the tensor-core peak, % of the drill's bar)."""
    from grader.speed.timing import format_pct, pct_of_peak

    providers = result["providers"]
    refs = [p for p in providers if p not in (CANDIDATE, EAGER, STATIC, DYNAMIC)]
    first = "shape" if any(r.get("label") for r in result["rows"]) else "n"
    time_rows = [[_row_label(row)] + [_us(row["ms"].get(p)) for p in providers] for row in result["rows"]]
    steps = any("peak_bytes" in row for row in result["rows"])  # a training drill: forward + backward timed
    graphed = bool(result["rows"]) and all(row.get("method") == "graphed" for row in result["rows"])
    caption = ("coach.bench.caption_steps" if steps else "coach.bench.caption_time") + ("_graphed" if graphed else "")
    time_table = (catalog.text(caption, lang),
                  [first] + [_short(p, refs) for p in providers], time_rows)
    if result.get("flops"):
        return [time_table, _tflops_table(result, providers, refs, first, lang)]
    peak = result.get("peak_gbps")
    bw_rows = []
    for row in result["rows"]:
        n = _row_label(row)
        copy = row.get("copy") or {}
        bw = [n] + ["—" if row["gbps"].get(p) is None else f"{row['gbps'][p]:.0f}"
                    for p in (CANDIDATE, EAGER, STATIC) if p in providers]
        bw.append("—" if copy.get("gbps") is None else f"{copy['gbps']:.0f}")
        bw.append(format_pct(pct_of_peak(row["gbps"].get(CANDIDATE), peak)))
        bw_rows.append(bw)
    bw_head = [first] + [p for p in (CANDIDATE, EAGER, STATIC) if p in providers] + ["copy", "% peak"]
    out = [time_table, (catalog.text("coach.bench.caption_gbps", lang), bw_head, bw_rows)]
    if any(row.get("peak_bytes") for row in result["rows"]):  # a training drill: forward + backward's memory
        shown = [p for p in providers if p != DYNAMIC]
        mem_rows = [[_row_label(row)] + [_mb((row.get("peak_bytes") or {}).get(p)) for p in shown]
                    for row in result["rows"]]
        out.append((catalog.text("coach.bench.caption_memory", lang), [first] + [_short(p, refs) for p in shown],
                    mem_rows))
    return out


def _mb(nbytes) -> str:
    return "—" if nbytes is None else f"{nbytes / 1e6:.0f}"


def _tflops_table(result: dict, providers: list[str], refs: list[str], first: str, lang: str = "en"):
    from grader.speed.timing import format_pct, pct_of_peak

    peak, bar = result.get("peak_tflops"), result.get("bar") or EAGER
    shown = [p for p in providers if p != DYNAMIC]
    rows = []
    for row in result["rows"]:
        tf = row.get("tflops") or {}
        mine, theirs = tf.get(CANDIDATE), tf.get(bar)
        rows.append([_row_label(row)] + ["—" if tf.get(p) is None else f"{tf[p]:.0f}" for p in shown]
                    + [format_pct(pct_of_peak(mine, peak)),
                       "—" if not (mine and theirs) else f"{100 * mine / theirs:.0f}%"])
    head = [first] + [_short(p, refs) for p in shown] + ["% peak", f"% {_short(bar, refs)}"]
    return (catalog.text("coach.bench.caption_tflops", lang), head, rows)




def legend(result: dict, lang: str) -> list[str]:
    """The lines under the sweep's tables (texts.yaml coach.bench.legend, legend_flops): what each column means."""
    refs = [p for p in result["providers"] if p not in (CANDIDATE, EAGER, STATIC, DYNAMIC)]
    if result.get("flops"):
        peak, bar = result.get("peak_tflops"), result.get("bar") or EAGER
        unknown = catalog.text("coach.bench.peak_unknown", lang, var="DRILL_PEAK_TFLOPS")
        lines = [ln.format(peak=f"{peak:.0f} TFLOPS" if peak else unknown, barcol=f"% {_short(bar, refs)}".ljust(9),
                           bar_long=bar) for ln in catalog.entry("coach.bench.legend_flops")[lang].splitlines()]
        if result.get("eager_is"):
            lines.insert(0, f"eager    = {result['eager_is']}")
        return lines + [f"{_short(r, refs):9s}= {r}" for r in refs if _short(r, refs) != r]
    peak = result.get("peak_gbps")
    shown = ["compile"] * (STATIC in result["providers"]) + ["dynamic"] * (DYNAMIC in result["providers"]) + ["rest"]
    unknown = catalog.text("coach.bench.peak_unknown", lang, var="DRILL_PEAK_GBPS")
    lines = [ln.format(peak=f"{peak:.0f} GB/s" if peak else unknown)
             for part in shown for ln in catalog.entry(f"coach.bench.legend.{part}")[lang].splitlines()]
    lines += [f"{_short(r, refs):9s}= {r}" for r in refs if _short(r, refs) != r]
    methods = {r.get("method") for r in result["rows"]}
    if "graphed" in methods and "do_bench" in methods:  # a size whose calls could not all be captured
        lines.append(catalog.text("coach.bench.plain_at", lang, at=", ".join(
            r.get("label") or f"{r['n']:,}" for r in result["rows"] if r.get("method") == "do_bench")))
    kinds = sorted({(r.get("copy") or {}).get("kind") for r in result["rows"]} - {None})
    if kinds:
        won = [catalog.text("coach.bench.copy_won_at", lang, kind=k, at=", ".join(
            r.get("label") or f"{r['n']:,}" for r in result["rows"] if (r.get("copy") or {}).get("kind") == k))
            for k in kinds]
        lines.append(catalog.text("coach.bench.copy_won", lang, kinds=catalog.text("coach.bench.copy_won_sep", lang)
                                  .join(won)))
    return lines


def plot(result: dict, out: Path) -> str | None:
    """Write a GB/s-vs-size plot: each provider, copy at each n, and the spec bandwidth; None when written, else
    why not (matplotlib missing)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return catalog.text("coach.bench.no_matplotlib", resolve_lang())
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    if result.get("flops"):
        _plot_tflops(ax, result)
        fig.tight_layout()
        fig.savefig(out, dpi=120)
        plt.close(fig)
        return None
    for p in result["providers"]:
        pts = [(r["n"], r["gbps"][p]) for r in result["rows"] if r["gbps"].get(p) is not None]
        if pts:
            ax.plot(*zip(*pts), marker="o", label=p)
    copies = [(r["n"], r["copy"]["gbps"]) for r in result["rows"] if (r.get("copy") or {}).get("gbps")]
    if copies:
        ax.plot(*zip(*copies), color="grey", linestyle="--", marker=".", label="copy at the same n (best of "
                                                                               "clone / Triton copy)")
    if result.get("peak_gbps"):
        ax.axhline(result["peak_gbps"], color="black", linestyle=":", label=f"spec bandwidth "
                                                                            f"{result['peak_gbps']:.0f} GB/s")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("n (elements)")
    ax.set_ylabel("effective GB/s (fused byte model / time)")
    ax.set_title(f"{result['drill']} on {result.get('device_name', 'GPU')}")
    ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return None


def _plot_tflops(ax, result: dict) -> None:
    """TFLOPS per provider at each shape (shapes in sweep order), and the tensor-core peak."""
    labels = [r.get("label") or f"{r['n']:,}" for r in result["rows"]]
    for p in result["providers"]:
        pts = [(i, r["tflops"][p]) for i, r in enumerate(result["rows"]) if (r.get("tflops") or {}).get(p)]
        if pts:
            ax.plot(*zip(*pts), marker="o", label=p)
    if result.get("peak_tflops"):
        ax.axhline(result["peak_tflops"], color="black", linestyle=":",
                   label=f"dense fp16 tensor-core peak {result['peak_tflops']:.0f} TFLOPS")
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize="small")
    ax.set_ylabel("TFLOPS (operations of one call / time)")
    ax.set_title(f"{result['drill']} on {result.get('device_name', 'GPU')}")
    ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)


# -- child ----------------------------------------------------------------------------------------------------------
def child_main(a) -> int:
    import importlib.util

    import torch
    import triton

    from drills import get_spec
    from grader.speed.timing import peak_gbps, peak_tflops

    spec = get_spec(a.drill)
    result = {"drill": spec.name, "providers": [], "rows": [], "triton": triton.__version__,
              "torch": torch.__version__, "flops": spec.flops is not None}
    if not torch.cuda.is_available():
        result["error"] = catalog.text("check_details.no_cuda", resolve_lang())
        atomic_write_text(Path(a.out), json.dumps(result))
        return 2
    result["device_name"] = name = torch.cuda.get_device_name()
    result["peak_gbps"] = peak_gbps(name)
    if spec.flops is not None:
        result["peak_tflops"] = peak_tflops(name)
        result["bar"] = spec.speed_refs[-1][0] if spec.speed_refs else EAGER
        doc = (getattr(spec.eager, "__doc__", None) or "").strip()
        result["eager_is"] = doc.splitlines()[0] if doc else None
    sys.path.insert(0, os.path.dirname(os.path.realpath(a.file)))
    mspec = importlib.util.spec_from_file_location("learner_submission", a.file)
    module = importlib.util.module_from_spec(mspec)
    try:
        mspec.loader.exec_module(module)
        entry = getattr(module, spec.entry)
    except Exception as e:  # noqa: BLE001
        result["error"] = catalog.text("coach.bench.cannot_load", resolve_lang(), entry=spec.entry,
                                       type=type(e).__name__, message=e)
        atomic_write_text(Path(a.out), json.dumps(result))
        return 1
    sizes = [s if isinstance(s, int) else tuple(s) for s in json.loads(a.sizes)]
    providers = {CANDIDATE: entry}
    if spec.eager is not None:
        providers[EAGER] = spec.eager
        providers[STATIC] = spec.eager   # compiled per size in _sweep_sizes
        if all(isinstance(s, int) for s in sizes):
            providers[DYNAMIC] = spec.eager  # compiled once, in _dynamic_sweep
    for label, fn in spec.speed_refs:
        providers[label] = fn
    result["providers"] = list(providers)
    try:
        _sweep_sizes(spec, providers, sizes, result)
        if DYNAMIC in providers:
            _dynamic_sweep(spec, sizes, result)
    except Exception as e:  # noqa: BLE001 - the learner's kernel failed: keep the rows so far, say what happened
        result["error"] = f"{type(e).__name__}: {str(e).strip().splitlines()[0][:300] if str(e).strip() else ''}"
        atomic_write_text(Path(a.out), json.dumps(result))
        return 1
    atomic_write_text(Path(a.out), json.dumps(result))
    return 0


def _inputs(spec, size, device: str = "cuda"):
    return draw(spec, size, numel_of(size) % (2 ** 31), device)


def _bytes(spec, size, args, out) -> int:
    """The fused byte model, else every input read once and the output written once."""
    model = spec.byte_model(size) if spec.byte_model else {}
    if model.get("fused"):
        return model["fused"]
    return sum(t.numel() * t.element_size() for t in args) + out.numel() * out.element_size()


def wrong_elements(spec, args, out) -> int | None:
    """grader.judge.evaluate.count_wrong's count, or None when the float64 reference does not fit in memory (an (S, S)
    score matrix at S = 8192)."""
    import torch

    from grader.judge.evaluate import count_wrong
    try:
        return count_wrong(spec, args, out)[0]
    except torch.OutOfMemoryError:
        return None


def static_compile(fn, args, kwargs):
    """torch.compile(fn, dynamic=False) for these shapes only: Dynamo's caches are reset first, so nothing compiled
    at another size (and no dynamic-shape recompile) is reused; the first call compiles, outside the timing."""
    import torch
    torch._dynamo.reset()
    compiled = torch.compile(fn, dynamic=False)
    compiled(*args, **kwargs)
    return compiled


def _sweep_sizes(spec, providers, sizes, result, device: str = "cuda") -> None:
    """Every provider but the swept compile at each size, the copy reference at that size (memory-bound drills), and
    the candidate's output checked against the float64 reference. `device` is "cuda" in `drill bench`; tests run it
    on "cpu", faked. A reference provider that fails (out of memory for an eager (S, S) score matrix) is recorded
    and the sweep goes on; the candidate failing ends it."""
    from grader.speed.timing import bench_graphed_ms, bench_ms, best_copy, gbps, graphed_or_plain, times_device

    def bench_plain(call):
        return bench_ms(call, warmup=25, rep=100)

    for i, size in enumerate(sizes):
        label = size_label(size)
        print(f"  bench: {label} ({i + 1}/{len(sizes)})", file=sys.stderr, flush=True)
        args = _inputs(spec, size, device)
        # compiles; checked below. A training drill's forward may write its gradient over an input (Liger's
        # fused loss): it is checked on its own copy.
        out = providers[CANDIDATE](*(_copies(args) if spec.grads is not None else args), **spec.kwargs)
        nbytes = _bytes(spec, size, args, out)
        steps = training_steps(spec, providers, args, device) if spec.grads is not None else None
        flops = spec.flops(size) if spec.flops else None
        row = {"n": numel_of(size), "bytes": nbytes, "ms": {}, "gbps": {}}
        if not isinstance(size, int):
            row.update(size=list(size), label=label)
        if flops:
            row.update(flops=flops, tflops={})
        calls = {}
        for name, fn in providers.items():
            if name == DYNAMIC:
                continue
            try:
                f = static_compile(fn, args, spec.kwargs) if name == STATIC else fn
                if steps is not None:  # forward + backward, and the step's peak memory beyond its inputs
                    calls[name] = steps(name, f)
                    row.setdefault("peak_bytes", {})[name] = peak_extra(calls[name], device)
                else:
                    calls[name] = lambda f=f, a=args: f(*a, **spec.kwargs)
            except Exception as e:  # noqa: BLE001 - a reference failing (compile, memory) must not end the sweep
                _failed(row, name, e, device)
        timer, row["method"] = bench_plain, "do_bench"
        if times_device(spec) and device == "cuda":
            # as the speed gate times them: device time, without the host's autograd and launches (~400 µs a
            # training step on the H200's host against ~100 µs of kernels), every provider the same way
            timer, _ = graphed_or_plain([(name, None, call) for name, call in calls.items()],
                                        lambda line: print(f"  {line}", file=sys.stderr, flush=True))
            row["method"] = "graphed" if timer is bench_graphed_ms else "do_bench"
        for name, call in calls.items():
            try:
                ms = timer(call)
            except Exception as e:  # noqa: BLE001
                _failed(row, name, e, device)
                continue
            row["ms"][name], row["gbps"][name] = ms, gbps(nbytes, ms / 1e3)
            if flops:
                row["tflops"][name] = flops / (ms / 1e3) / 1e12
        if not flops:
            copy = best_copy(nbytes // 8 if not isinstance(size, int) else size, warmup=25, rep=100)
            row["copy"] = {"kind": copy["kind"], "ms": copy["ms"], "gbps": copy["gbps"], "all_ms": copy["all_ms"]}
        row["wrong"] = wrong_elements(spec, args, out)
        result["rows"].append(row)
        del args, out
        _free(device)


def _failed(row: dict, name: str, error: Exception, device: str) -> None:
    """A provider that failed (compile, memory) is recorded and the sweep goes on; the candidate failing ends it."""
    row.setdefault("errors", {})[name] = f"{type(error).__name__}: {str(error)[:200]}"
    _free(device)
    if name == CANDIDATE:
        raise error


def _copies(args) -> list:
    import torch
    return [a.clone() if isinstance(a, torch.Tensor) else a for a in args]


def training_steps(spec, providers, args, device: str):
    """For a training drill (spec.grads): steps(name, fn) -> a callable running fn's forward and out.backward(dy) on
    that provider's own copies of the inputs, as the speed gate times it (the family's `step_maker`); dy is drawn
    once, like a grade's, in the candidate's output shape."""
    import inspect

    from grader.families import registry

    names = list(inspect.signature(providers[CANDIDATE]).parameters)[:len(args)]
    make_step = registry.first(spec, "step_maker", spec, providers[CANDIDATE], args, names, spec.kwargs)

    def steps(name, fn):
        step = make_step(fn)
        step()  # compiles (torch.compile's backward too) and autotunes outside the timing
        return step
    return steps


def peak_extra(step, device: str) -> int | None:
    """Bytes a step allocates at its peak beyond what was allocated before it (CUDA; None elsewhere)."""
    if device != "cuda":
        return None
    import torch
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    step()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - before


def _dynamic_sweep(spec, sizes, result, device: str = "cuda") -> None:
    """One torch.compile(eager) called at every size in turn, as a naive sweep would: Dynamo recompiles with dynamic
    shapes at the second size. Records its time per size and the sizes where it (re)compiled."""
    import torch

    from grader.speed.timing import bench_ms, gbps

    def compiles() -> int:
        return torch._dynamo.utils.counters["frames"]["ok"]

    torch._dynamo.reset()
    compiled = torch.compile(spec.eager)
    result["dynamic_compiles_at"] = []
    rows = {r["n"]: r for r in result["rows"]}
    for n in sizes:
        print("  " + catalog.text("progress.bench_sweep", resolve_lang(), n=f"{n:,}"), file=sys.stderr, flush=True)
        args = _inputs(spec, n, device)
        nbytes = rows[n]["bytes"]
        before = compiles()
        try:
            compiled(*args, **spec.kwargs)
            if compiles() > before:
                result["dynamic_compiles_at"].append(n)
            ms = bench_ms(lambda: compiled(*args, **spec.kwargs), warmup=25, rep=100)
        except Exception as e:  # noqa: BLE001
            rows[n].setdefault("errors", {})[DYNAMIC] = f"{type(e).__name__}: {str(e)[:200]}"
            continue
        rows[n]["ms"][DYNAMIC], rows[n]["gbps"][DYNAMIC] = ms, gbps(nbytes, ms / 1e3)
        del args
        _free(device)


def _free(device: str) -> None:
    if device == "cuda":
        import torch
        torch.cuda.empty_cache()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--file", required=True)
    ap.add_argument("--drill", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", required=True)
    return child_main(ap.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
