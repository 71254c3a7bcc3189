"""Record what torch.compile (Inductor) writes for relu(x + y), and its compile-vs-cache times.

    python benchmarks/inductor_capture.py --out results/inductor        # on the H200
    python benchmarks/inductor_capture.py --out /tmp/ind --sizes 100000  # CPU: Triton via interpreter, else C++

Uses the `fuse` drill's eager function when that drill exists, else relu(x + y) directly. Each size runs in two
fresh processes sharing one new cache folder (TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR):
  cold  the folder is empty: first call = Dynamo trace + Inductor codegen + Triton compile (+ autotune);
  warm  the folder holds the first process's artifacts: first call = trace + FX-graph-cache hit + kernel load.
In both, the second call reuses the in-process compiled graph. Writes <out>/output_code_<size>.py,
<out>/kernel_<name>_<size>.py and <out>/inductor_capture.json; prints a table.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def eager_function():
    try:
        import drills
        spec = drills.get_spec("fuse")
        return spec.eager or spec.reference, "drills fuse"
    except Exception:
        import torch

        def relu_add(x, y):
            return torch.relu(x + y)
        return relu_add, "relu(x + y)"


def child(size: int, out_dir: Path, label: str) -> dict:
    """Runs in a fresh process (the cache variables are already set)."""
    import torch

    cuda = torch.cuda.is_available()
    device = "cuda" if cuda else "cpu"
    path = "cuda"
    if not cuda:
        from coach.inductor.child import enable_cpu_triton
        ok, why = enable_cpu_triton()
        path = "cpu-triton-interpreter" if ok else f"cpu-cpp ({why})"
    fn, fn_label = eager_function()
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(size, generator=gen).to(device)
    y = torch.randn(size, generator=gen).to(device)
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    from torch._dynamo.utils import counters
    from torch._inductor.utils import run_and_get_code
    counters.clear()
    compiled = torch.compile(fn)

    def calls():
        times = []
        for _ in range(2 + 20):
            sync()
            t0 = time.perf_counter()
            out = compiled(x, y)
            sync()
            times.append(time.perf_counter() - t0)
        return out, times

    (out, times), codes = run_and_get_code(calls)
    eager = []
    for _ in range(20):
        sync()
        t0 = time.perf_counter()
        ref = fn(x, y)
        sync()
        eager.append(time.perf_counter() - t0)
    steady = sorted(times[2:])
    result = {"label": label, "size": size, "device": device, "path": path, "function": fn_label,
              "torch": torch.__version__, "device_name": torch.cuda.get_device_name() if cuda else None,
              "first_call_s": times[0], "second_call_s": times[1], "steady_median_s": steady[len(steady) // 2],
              "eager_median_s": sorted(eager)[len(eager) // 2],
              "fx_graph_cache": {k: int(v) for k, v in counters.get("inductor", {}).items() if "fxgraph" in k},
              "matches_eager": bool(torch.allclose(out, ref)), "n_codes": len(codes)}
    try:
        import triton
        result["triton"] = triton.__version__
    except Exception:
        result["triton"] = None
    try:
        from coach.inductor.child import autotuner_configs
        result["autotuners"] = autotuner_configs()
    except Exception as e:
        result["autotuners"] = f"unavailable: {e}"
    if label == "cold":
        from coach.inductor.capture import extract_kernels
        for i, code in enumerate(codes):
            (out_dir / f"output_code_{size}{'' if i == 0 else f'_{i}'}.py").write_text(code)
            for k in extract_kernels(code):
                (out_dir / f"kernel_{k.name}_{size}.{'py' if k.lang == 'triton' else 'cpp'}").write_text(k.source)
                result.setdefault("kernels", []).append(k.name)
    return result


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="folder for the output code and inductor_capture.json")
    p.add_argument("--sizes", default="100000,10000000", help="comma-separated element counts")
    p.add_argument("--child", nargs=2, metavar=("SIZE", "LABEL"), help=argparse.SUPPRESS)
    a = p.parse_args()
    out_dir = Path(a.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    if a.child:
        res = child(int(a.child[0]), out_dir, a.child[1])
        print("RESULT " + json.dumps(res, default=str))
        return 0
    rows = []
    for size in [int(s) for s in a.sizes.split(",")]:
        cache = tempfile.mkdtemp(prefix="inductor-bench-cache-")
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache, TRITON_CACHE_DIR=os.path.join(cache, "triton"),
                   PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        if not os.path.exists("/dev/nvidiactl"):
            env["TRITON_INTERPRET"] = "1"
        for label in ("cold", "warm"):
            t0 = time.perf_counter()
            r = subprocess.run([sys.executable, __file__, "--out", str(out_dir), "--child", str(size), label],
                               env=env, capture_output=True, text=True, timeout=900)
            line = next((l for l in r.stdout.splitlines() if l.startswith("RESULT ")), None)
            if line is None:
                print(f"size {size} {label}: child failed (exit {r.returncode})\n{r.stderr[-3000:]}")
                rows.append({"size": size, "label": label, "error": r.stderr[-3000:]})
                continue
            res = json.loads(line[len("RESULT "):])
            res["process_wall_s"] = time.perf_counter() - t0
            rows.append(res)
    print(f"{'size':>10} {'cache':>5} {'first call':>12} {'second':>10} {'steady med':>11} {'eager med':>10}  "
          f"fx cache  path")
    for r in rows:
        if "error" in r:
            continue
        print(f"{r['size']:>10} {r['label']:>5} {r['first_call_s']:>11.3f}s {r['second_call_s'] * 1e6:>8.1f}us "
              f"{r['steady_median_s'] * 1e6:>9.1f}us {r['eager_median_s'] * 1e6:>8.1f}us  "
              f"{r['fx_graph_cache']}  {r['path']}")
    (out_dir / "inductor_capture.json").write_text(json.dumps(rows, indent=1, default=str))
    print(f"wrote {out_dir / 'inductor_capture.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
