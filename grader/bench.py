"""`drill bench FILE`: a size sweep of the learner's kernel against eager PyTorch and torch.compile (CUDA only),
like Triton's tutorial-01 benchmark: a table, and a GB/s-vs-size plot when matplotlib is installed.

The parent (`sweep`, `render_table`, `plot`) never imports the learner's file; the child
(`python -m grader.bench --child ...`) does, times with `triton.testing.do_bench(return_mode="median")` (L2 flushed)
and writes JSON. GB/s is effective bandwidth: the drill's fused byte model (or inputs + one output) / time.
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
CANDIDATE = "yours"
NOT_ON_CPU = {
    "en": "drill bench times kernels on a GPU, and this machine has none. Triton's interpreter runs a kernel "
          "thousands of times slower than a GPU, so times measured here would mean nothing. On CPU, "
          "`drill grade FILE` proves fusion by counting the bytes each call moves.",
    "zh": "drill bench 需要在 GPU 上计时，而本机没有 GPU。Triton 解释器比 GPU 慢几千倍，在这里测出的时间毫无意义。"
          "在 CPU 上，`drill grade FILE` 通过统计每次调用搬运的字节数来证明融合。",
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
        if not os.path.exists(out):
            return {"error": f"the benchmark process died (exit code {proc.returncode}); its output is above"}
        with open(out, encoding="utf-8") as f:
            return json.load(f)


def table_rows(result: dict) -> tuple[list[str], list[list[str]]]:
    providers = result["providers"]
    head = ["n"] + [f"{p} µs" for p in providers] + [f"{p} GB/s" for p in providers]
    rows = []
    for row in result["rows"]:
        cells = [f"{row['n']:,}"]
        for p in providers:
            ms = row["ms"].get(p)
            cells.append("—" if ms is None else f"{ms * 1e3:.1f}")
        for p in providers:
            g = row["gbps"].get(p)
            cells.append("—" if g is None else f"{g:.0f}")
        if row.get("wrong"):
            cells[0] += " ✗"
        rows.append(cells)
    return head, rows


def plot(result: dict, out: Path) -> str | None:
    """Write a GB/s-vs-size plot; returns an error message instead when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (pip install matplotlib); the table above has the same numbers"
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for p in result["providers"]:
        pts = [(r["n"], r["gbps"][p]) for r in result["rows"] if r["gbps"].get(p) is not None]
        if pts:
            ax.plot(*zip(*pts), marker="o", label=p)
    if result.get("copy_gbps"):
        ax.axhline(result["copy_gbps"], color="grey", linestyle="--", label="x.clone() copy bandwidth")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("n (elements)")
    ax.set_ylabel("effective GB/s (fused byte model / time)")
    ax.set_title(f"{result['drill']} on {result.get('device_name', 'GPU')}")
    ax.legend()
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
    from .timing import bandwidth_path, cached_bandwidth

    spec = get_spec(a.drill)
    result = {"drill": spec.name, "providers": [], "rows": [], "triton": triton.__version__,
              "torch": torch.__version__}
    if not torch.cuda.is_available():
        result["error"] = "no CUDA device"
        atomic_write_text(Path(a.out), json.dumps(result))
        return 2
    result["device_name"] = name = torch.cuda.get_device_name()
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
        providers["eager"] = spec.eager
        try:
            providers["torch.compile"] = torch.compile(spec.eager)
        except Exception as e:  # noqa: BLE001
            result["compile_error"] = str(e)[:300]
    for label, fn in spec.speed_refs:
        providers[label] = fn
    result["providers"] = list(providers)
    sizes = [int(s) for s in a.sizes.split(",")]
    result["copy_gbps"] = (cached_bandwidth(bandwidth_path(), name, spec.bench_size, torch.__version__) or 0) / 1e9
    try:
        _sweep_sizes(spec, entry, providers, sizes, result)
    except Exception as e:  # noqa: BLE001 - the learner's kernel failed: keep the rows so far, say what happened
        result["error"] = f"{type(e).__name__}: {str(e).strip().splitlines()[0][:300] if str(e).strip() else ''}"
        atomic_write_text(Path(a.out), json.dumps(result))
        return 1
    atomic_write_text(Path(a.out), json.dumps(result))
    return 0


def _sweep_sizes(spec, entry, providers, sizes, result) -> None:
    import torch

    from .evaluate import _close
    from .timing import bench_ms

    gen = torch.Generator().manual_seed(0)
    for i, n in enumerate(sizes):
        print(f"  bench: n={n:,} ({i + 1}/{len(sizes)})", file=sys.stderr, flush=True)
        args = [t.cuda() for t in spec.make_inputs(n, gen)]
        nbytes = spec.byte_model(n)["fused"] if spec.byte_model else \
            sum(t.numel() * t.element_size() for t in args) + args[0].numel() * args[0].element_size()
        row = {"n": n, "ms": {}, "gbps": {}, "wrong": 0}
        for label, fn in providers.items():
            try:
                ms = bench_ms(lambda: fn(*args, **spec.kwargs), warmup=25, rep=100)
            except Exception as e:  # noqa: BLE001 - one provider failing (compile) must not end the sweep
                row.setdefault("errors", {})[label] = f"{type(e).__name__}: {str(e)[:200]}"
                if label == "torch.compile":
                    continue
                raise
            row["ms"][label], row["gbps"][label] = ms, nbytes / (ms / 1e3) / 1e9
        out = entry(*args, **spec.kwargs)
        ref = spec.reference(*[t.double() for t in args], **spec.kwargs)
        rtol, atol = spec.tolerance_for(str(out.dtype).replace("torch.", ""))
        row["wrong"] = int((~_close(out.double().reshape(-1), ref.reshape(-1), rtol, atol)).sum())
        result["rows"].append(row)
        del args, out, ref


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
