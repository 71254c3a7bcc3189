"""Re-measure the one-off H200 figures quoted in docs/, prompts.yaml and the report texts (benchmark; needs CUDA).

    PYTHONPATH=. python benchmarks/h200_figures.py --out DIR

The other figures have their own scripts (fusion_gate.py, rows_and_persistent.py, inductor_capture.py,
grade_all.py, latency.py); this one measures what none of them does, with the code `drill bench` runs
(grader.speed.bench: do_bench median, L2 flushed; copy = the faster of x.clone() and a Triton copy at the same n; the
static torch.compile per size beside one compile swept over sizes):

  relu(x + y) (solutions/fuse.py) at 1e5, 2^12..2^27, 1e8 and 2^24+17:
    - eager vs fused at n = 1e8 and their ratio              prompts.yaml fuse-why, docs/fusion.md §2
    - copy at each n (clone and Triton copy), fused GB/s     docs/fusion.md §3, docs/latency.md (bench)
    - static vs swept (dynamic) torch.compile at 2^26        grader/speed/bench.py LEGEND, docs/latency.md
  GELU (solutions/gelu.py) at 2^24+17: F.gelu(tanh), the 9-op eager chain, the Triton reference, torch.compile of
    the chain                                                prompts.yaml gelu checkpoint
  CUDA-graph replay of relu(x + y) at 1e5, fused vs eager    texts.yaml messages.launch_bound

Prints each figure with where it is quoted, and writes DIR/h200_figures.json (the sweeps in full).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FUSE_SIZES = sorted({100_000, 10 ** 8, 2 ** 24 + 17} | {2 ** i for i in range(12, 28)})
GELU_SIZES = [2 ** 24 + 17]


def cuda_graph_replay_us(n: int = 100_000, calls: int = 20) -> dict:
    """µs per call when `calls` calls are captured in one CUDA graph and replayed: launch overhead removed."""
    import torch
    from triton.testing import do_bench

    from drills import get_spec
    from grader.speed.bench import _inputs
    from solutions.fuse import add_relu

    spec = get_spec("fuse")
    args, _ = _inputs(spec, n)
    out = {}
    for label, fn in (("fused", add_relu), ("eager", spec.eager)):
        fn(*args)  # compile / warm up outside the capture
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):  # captures on its own side stream
            for _ in range(calls):
                fn(*args)
        torch.cuda.synchronize()
        out[label] = 1e3 * do_bench(g.replay, warmup=25, rep=200, return_mode="median") / calls
    return out


def pick(result: dict, n: int) -> dict:
    return next(r for r in result["rows"] if r["n"] == n)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    a = ap.parse_args(argv)
    os.environ.pop("TRITON_INTERPRET", None)
    import torch
    if not torch.cuda.is_available():
        print("needs a CUDA GPU", file=sys.stderr)
        return 2
    from grader.speed import bench

    a.out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    fuse = bench.sweep(ROOT / "solutions" / "fuse.py", "fuse", FUSE_SIZES, timeout=1800)
    gelu = bench.sweep(ROOT / "solutions" / "gelu.py", "gelu", GELU_SIZES, timeout=600)
    for name, r in (("fuse", fuse), ("gelu", gelu)):
        if r.get("error"):
            print(f"{name} sweep: {r['error']}", file=sys.stderr)
    graph = cuda_graph_replay_us()
    results = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "fuse": fuse, "gelu": gelu,
               "cuda_graph_replay_us": graph, "elapsed_s": round(time.perf_counter() - started, 1),
               "date": time.strftime("%Y-%m-%d")}
    (a.out / "h200_figures.json").write_text(json.dumps(results, indent=1))

    print(f"{results['device']}, torch {torch.__version__}; do_bench median, L2 flushed\n")
    from coach.bench import print_tables
    print_tables(fuse, "fuse", "en")
    print_tables(gelu, "gelu", "en")
    r8 = pick(fuse, 10 ** 8)
    ms, copy = r8["ms"], r8["copy"]
    print("\nfigures and where they are quoted:")
    print(f"- relu(x + y), n = 1e8: eager {ms['eager'] * 1e3:.0f} µs, fused {ms['yours'] * 1e3:.0f} µs "
          f"({ms['eager'] / ms['yours']:.2f}x; byte model 5/3)   [prompts.yaml fuse; docs/fusion.md §2]")
    print(f"- n = 1e8: copy {copy['gbps']:.0f} GB/s ({copy['kind']}); all copies: " +
          ", ".join(f"{k} {2 * 10 ** 8 * 4 / (v / 1e3) / 1e9:.0f} GB/s" for k, v in copy["all_ms"].items()) +
          f"; fused add+relu {r8['gbps']['yours']:.0f} GB/s effective   [docs/fusion.md §3]")
    r26 = pick(fuse, 2 ** 26)
    print(f"- 2^26: torch.compile static {r26['ms']['compile'] * 1e3:.0f} µs, swept/dynamic "
          f"{r26['ms'].get('compile†', float('nan')) * 1e3:.0f} µs, eager {r26['ms']['eager'] * 1e3:.0f} µs, "
          f"hand-written {r26['ms']['yours'] * 1e3:.0f} µs; the swept compile compiled at n = "
          f"{fuse.get('dynamic_compiles_at')}   [grader/speed/bench.py LEGEND; docs/latency.md]")
    print("- copy curve: " + ", ".join(f"2^{n.bit_length() - 1} {pick(fuse, n)['copy']['gbps']:.0f}"
                                       for n in (2 ** 22, 2 ** 23, 2 ** 24, 2 ** 25, 2 ** 26)) + " GB/s")
    g = pick(gelu, 2 ** 24 + 17)["ms"]
    ref = next(k for k in g if k.startswith("F.gelu"))
    print(f"- GELU, n = 2^24+17: F.gelu(tanh) {g[ref] * 1e3:.1f} µs, 9-op eager {g['eager'] * 1e3:.1f} µs, Triton "
          f"{g['yours'] * 1e3:.1f} µs, torch.compile of the chain {g['compile'] * 1e3:.1f} µs   [prompts.yaml gelu]")
    print(f"- CUDA graph replay, n = 1e5: fused {graph['fused']:.1f} µs vs eager {graph['eager']:.1f} µs per call"
          f"   [texts.yaml messages.launch_bound]")
    print(f"\nwrote {a.out / 'h200_figures.json'} ({results['elapsed_s']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
