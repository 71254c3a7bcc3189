"""`drill bench FILE`: a size sweep of the learner's kernel against eager PyTorch and torch.compile (CUDA only),
like Triton's tutorial-01 benchmark: two tables (time, bandwidth), and a GB/s-vs-size plot when matplotlib is there.

The parent (`sweep`, `tables`, `plot`) never imports the learner's file; the child (`python -m grader.bench --child
...`) does, times with `triton.testing.do_bench(return_mode="median")` (L2 flushed) and writes JSON.

What each column is, so that an expert can trust it:
- "compile": `torch.compile(eager, dynamic=False)` compiled afresh at each n (Dynamo's caches reset first): the
  kernel a program with that fixed shape gets.
- "compile†": ONE `torch.compile(eager)` called at every n in turn, as a naive sweep does. From the second size
  Dynamo recompiles with dynamic shapes (automatic_dynamic_shapes) and every later size runs that one dynamic
  kernel, which can be much slower (H200, relu(x + y) at 2^26, 2026-11-29: 322 µs dynamic vs 190 µs static, eager
  318 µs; a re-run on 2026-11-30 measured 191 vs 189 µs: the gap depends on which sizes the sweep compiled at).
- GB/s is effective bandwidth: the drill's fused byte model (or inputs + one output) / time.
- "copy": at the same n, the faster of `x.clone()` and a Triton copy kernel (read + write counted); which one won
  is in the JSON and under the table. Copy is a reference, not a limit (a kernel that reads more than it writes
  can stream a little faster than a 1:1 copy).
- "% peak": of the GPU's spec bandwidth (grader.timing.peak_gbps, H200 4.8 TB/s), the physical limit. Nothing is
  shown above 100 %: a time that would be is not a measurement of the work, and is marked "!".
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from coach.store import atomic_write_text

DEFAULT_SIZES = tuple(2 ** i for i in range(12, 28))
CANDIDATE, EAGER, STATIC, DYNAMIC = "yours", "eager", "compile", "compile†"
NOT_ON_CPU = {
    "en": "drill bench times kernels on a GPU, and this machine has none. Triton's interpreter runs a kernel "
          "thousands of times slower than a GPU, so times measured here would mean nothing. On CPU, "
          "`drill grade FILE` proves fusion by counting the bytes each call moves.",
    "zh": "drill bench 需要在 GPU 上计时，而本机没有 GPU。Triton 解释器比 GPU 慢几千倍，在这里测出的时间毫无意义。"
          "在 CPU 上，`drill grade FILE` 通过统计每次调用搬运的字节数来证明融合。",
}
LEGEND = {
    "en": ["compile  = torch.compile(eager, dynamic=False), compiled afresh at each n:",
           "           the kernel a program with that fixed shape gets.",
           "compile† = ONE torch.compile(eager) called at every n in turn: from the 2nd",
           "           size Dynamo recompiles with dynamic shapes, and that one dynamic",
           "           kernel can be much slower at large n (H200, relu(x + y) at 2^26:",
           "           once 322 µs dynamic vs 190 µs static, eager 318 µs; another",
           "           run 191 vs 189 µs: it depends on where the sweep compiled).",
           "GB/s     = the fused byte model / time.",
           "copy     = the faster of x.clone() and a Triton copy kernel at the same n",
           "           (read + write): a reference, not a limit.",
           "% peak   = of the GPU's spec bandwidth ({peak}), the physical limit;",
           "           '!' = faster than that: the time does not measure the work."],
    "zh": ["compile  = torch.compile(eager, dynamic=False)，每个 n 重新编译：",
           "           固定形状的程序得到的 kernel。",
           "compile† = 同一个 torch.compile(eager) 依次在每个 n 上调用：从第 2 个尺寸起",
           "           Dynamo 用动态形状重新编译，之后都用这一个动态 kernel，大 n 时可能",
           "           慢很多（H200，relu(x + y)，2^26：一次实测动态 322 µs，静态 190 µs，",
           "           eager 318 µs；另一次 191 对 189 µs：取决于扫描在哪些尺寸上编译）。",
           "GB/s     = 融合字节模型 / 时间。",
           "copy     = 同一 n 下 x.clone() 与 Triton 拷贝 kernel 中较快者（读 + 写）：",
           "           是参照，不是上限。",
           "% peak   = 占 GPU 标称带宽（{peak}）的比例，这是物理上限；",
           "           '!' = 比它还快：这个时间没有测到真正的工作。"],
}


# -- parent ---------------------------------------------------------------------------------------------------------
def sweep(path: Path, drill: str, sizes, timeout: float = 900.0) -> dict:
    """Run the child; its progress goes to our stderr. Returns the child's JSON (or {"error": ...})."""
    from .proc import child_env, kill_group, reaped, scratch_dir, spawn

    with scratch_dir("drill-bench-") as work:
        out = os.path.join(work, "bench.json")
        cmd = [sys.executable, "-m", "grader.bench", "--child", "--file", str(path), "--drill", drill, "--out", out,
               "--sizes", ",".join(str(s) for s in sizes)]
        env = child_env()
        env.pop("TRITON_INTERPRET", None)
        proc = spawn(cmd, cwd=str(Path(path).parent), env=env, stdin=subprocess.DEVNULL, stdout=sys.stderr,
                     stderr=sys.stderr)
        try:
            proc.wait(timeout=timeout)
            reaped(proc)
        except subprocess.TimeoutExpired:
            kill_group(proc)  # the learner's kernel and anything it started
            return {"error": f"the sweep did not finish in {timeout:.0f} s"}
        except BaseException:  # Ctrl-C (or SIGTERM turned into an exception): the child has its own session
            kill_group(proc)
            raise
        if not os.path.exists(out):
            return {"error": f"the benchmark process died (exit code {proc.returncode}); its output is above"}
        with open(out, encoding="utf-8") as f:
            return json.load(f)


def _us(ms) -> str:
    return "—" if ms is None else f"{ms * 1e3:.1f}"


def _short(label: str, refs: list[str]) -> str:
    """Column headers stay narrow (tables must fit 80 columns when piped): a long reference label becomes ref1.."""
    return label if len(label) <= 9 else f"ref{refs.index(label) + 1}"


def tables(result: dict) -> list[tuple[str, list[str], list[list[str]]]]:
    """[(title, head, rows)]: time per provider, then bandwidth (yours, eager, compile, copy, % peak)."""
    from .timing import format_pct, pct_of_peak

    providers = result["providers"]
    refs = [p for p in providers if p not in (CANDIDATE, EAGER, STATIC, DYNAMIC)]
    peak = result.get("peak_gbps")
    time_rows, bw_rows = [], []
    for row in result["rows"]:
        n = f"{row['n']:,}" + (" ✗" if row.get("wrong") else "")
        time_rows.append([n] + [_us(row["ms"].get(p)) for p in providers])
        copy = row.get("copy") or {}
        bw = [n] + ["—" if row["gbps"].get(p) is None else f"{row['gbps'][p]:.0f}"
                    for p in (CANDIDATE, EAGER, STATIC) if p in providers]
        bw.append("—" if copy.get("gbps") is None else f"{copy['gbps']:.0f}")
        bw.append(format_pct(pct_of_peak(row["gbps"].get(CANDIDATE), peak)))
        bw_rows.append(bw)
    bw_head = ["n"] + [p for p in (CANDIDATE, EAGER, STATIC) if p in providers] + ["copy", "% peak"]
    return [("µs (do_bench median, L2 flushed)", ["n"] + [_short(p, refs) for p in providers], time_rows),
            ("GB/s (fused byte model / time)", bw_head, bw_rows)]


def legend(result: dict, lang: str) -> list[str]:
    from .i18n import pick

    peak = result.get("peak_gbps")
    lines = [ln.format(peak=f"{peak:.0f} GB/s" if peak else "unknown: set DRILL_PEAK_GBPS")
             for ln in pick(LEGEND, lang)]
    refs = [p for p in result["providers"] if p not in (CANDIDATE, EAGER, STATIC, DYNAMIC)]
    lines += [f"{_short(r, refs):9s}= {r}" for r in refs if _short(r, refs) != r]
    kinds = sorted({(r.get("copy") or {}).get("kind") for r in result["rows"]} - {None})
    if kinds:
        lines.append("copy won by: " + "; ".join(
            f"{k} at " + ", ".join(f"{r['n']:,}" for r in result["rows"] if (r.get("copy") or {}).get("kind") == k)
            for k in kinds))
    return lines


def plot(result: dict, out: Path) -> str | None:
    """Write a GB/s-vs-size plot: each provider, copy at each n, and the spec bandwidth; None when written, else
    why not (matplotlib missing)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (pip install matplotlib); the table above has the same numbers"
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
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


# -- child ----------------------------------------------------------------------------------------------------------
def child_main(a) -> int:
    import importlib.util

    import torch
    import triton

    from drills import get_spec
    from .timing import peak_gbps

    spec = get_spec(a.drill)
    result = {"drill": spec.name, "providers": [], "rows": [], "triton": triton.__version__,
              "torch": torch.__version__}
    if not torch.cuda.is_available():
        result["error"] = "no CUDA device"
        atomic_write_text(Path(a.out), json.dumps(result))
        return 2
    result["device_name"] = name = torch.cuda.get_device_name()
    result["peak_gbps"] = peak_gbps(name)
    sys.path.insert(0, os.path.dirname(os.path.realpath(a.file)))
    mspec = importlib.util.spec_from_file_location("learner_submission", a.file)
    module = importlib.util.module_from_spec(mspec)
    try:
        mspec.loader.exec_module(module)
        entry = getattr(module, spec.entry)
    except Exception as e:  # noqa: BLE001
        result["error"] = f"could not load `{spec.entry}` from the file: {type(e).__name__}: {e}"
        atomic_write_text(Path(a.out), json.dumps(result))
        return 1
    providers = {CANDIDATE: entry}
    if spec.eager is not None:
        providers[EAGER] = spec.eager
        providers[STATIC] = spec.eager   # compiled per size in _sweep_sizes
        providers[DYNAMIC] = spec.eager  # compiled once, in _dynamic_sweep
    for label, fn in spec.speed_refs:
        providers[label] = fn
    result["providers"] = list(providers)
    sizes = [int(s) for s in a.sizes.split(",")]
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


def _inputs(spec, n, device: str = "cuda"):
    import torch
    gen = torch.Generator().manual_seed(n)
    args = [t.to(device) for t in spec.make_inputs(n, gen)]
    nbytes = spec.byte_model(n)["fused"] if spec.byte_model else \
        sum(t.numel() * t.element_size() for t in args) + args[0].numel() * args[0].element_size()
    return args, nbytes


def static_compile(fn, args, kwargs):
    """torch.compile(fn, dynamic=False) for these shapes only: Dynamo's caches are reset first, so nothing compiled
    at another size (and no dynamic-shape recompile) is reused; the first call compiles, outside the timing."""
    import torch
    torch._dynamo.reset()
    compiled = torch.compile(fn, dynamic=False)
    compiled(*args, **kwargs)
    return compiled


def _sweep_sizes(spec, providers, sizes, result, device: str = "cuda") -> None:
    """Every provider but the swept compile at each n, the copy reference at that n, and the candidate's output
    checked against the float64 reference. `device` is "cuda" in `drill bench`; tests run it on "cpu", faked."""
    from .evaluate import _close
    from .timing import bench_ms, best_copy, gbps

    for i, n in enumerate(sizes):
        print(f"  bench: n={n:,} ({i + 1}/{len(sizes)})", file=sys.stderr, flush=True)
        args, nbytes = _inputs(spec, n, device)
        row = {"n": n, "bytes": nbytes, "ms": {}, "gbps": {}, "wrong": 0}
        for label, fn in providers.items():
            if label == DYNAMIC:
                continue
            try:
                f = static_compile(fn, args, spec.kwargs) if label == STATIC else fn
                ms = bench_ms(lambda: f(*args, **spec.kwargs), warmup=25, rep=100)
            except Exception as e:  # noqa: BLE001 - one provider failing (compile) must not end the sweep
                row.setdefault("errors", {})[label] = f"{type(e).__name__}: {str(e)[:200]}"
                if label == STATIC:
                    continue
                raise
            row["ms"][label], row["gbps"][label] = ms, gbps(nbytes, ms / 1e3)
        copy = best_copy(n, warmup=25, rep=100)
        row["copy"] = {"kind": copy["kind"], "ms": copy["ms"], "gbps": copy["gbps"], "all_ms": copy["all_ms"]}
        out = providers[CANDIDATE](*args, **spec.kwargs)
        ref = spec.reference(*[t.double() for t in args], **spec.kwargs)
        rtol, atol = spec.tolerance_for(str(out.dtype).replace("torch.", ""))
        row["wrong"] = int((~_close(out.double().reshape(-1), ref.reshape(-1), rtol, atol)).sum())
        result["rows"].append(row)
        del args, out, ref
        _free(device)


def _dynamic_sweep(spec, sizes, result, device: str = "cuda") -> None:
    """One torch.compile(eager) called at every size in turn, as a naive sweep would: Dynamo recompiles with dynamic
    shapes at the second size. Records its time per size and the sizes where it (re)compiled."""
    import torch

    from .timing import bench_ms, gbps

    def compiles() -> int:
        return torch._dynamo.utils.counters["frames"]["ok"]

    torch._dynamo.reset()
    compiled = torch.compile(spec.eager)
    result["dynamic_compiles_at"] = []
    rows = {r["n"]: r for r in result["rows"]}
    for n in sizes:
        print(f"  bench: one compile swept over sizes, n={n:,}", file=sys.stderr, flush=True)
        args, nbytes = _inputs(spec, n, device)
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
