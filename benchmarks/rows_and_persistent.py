"""Benchmark (not a test): the row kernels and the persistent grid on a CUDA GPU.

    PYTHONPATH=. python benchmarks/rows_and_persistent.py --out DIR

1. Softmax and RMSNorm reference solutions vs the naive eager op chain vs torch.softmax / F.rms_norm, at 4096x8192
   and 4096x781 (fp32), do_bench median; GB/s beside the copy of the same bytes (the faster of x.clone() and a
   Triton copy kernel) and % of the GPU's spec bandwidth (grader.speed.timing.peak_gbps: the physical limit).
2. Persistent add (grid capped at k x SMs, k = 1, 4, 8) vs one program per tile at n = 1e5, 2^24+17, 2^27+17.

Prints a table and writes DIR/rows_and_persistent.json. Works with torch 2.11 / triton 3.6 (the H200 machine).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import torch
import triton
import triton.language as tl
from triton.testing import do_bench

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.speed.timing import best_copy, peak_gbps  # noqa: E402
from solutions.rmsnorm import rmsnorm as triton_rmsnorm  # noqa: E402
from solutions.softmax import softmax as triton_softmax  # noqa: E402

REPS = 5  # medians of this many do_bench medians


def bench(fn) -> float:
    """Median over REPS of do_bench's median, in microseconds."""
    fn()
    torch.cuda.synchronize()
    ms = sorted(do_bench(fn, warmup=25, rep=100, return_mode="median") for _ in range(REPS))
    return ms[len(ms) // 2] * 1000.0


def eager_softmax(x):
    m = x.max(dim=1, keepdim=True).values
    e = (x - m).exp()
    return e / e.sum(dim=1, keepdim=True)


def eager_rmsnorm(x, w, eps=1e-6):
    return x * (x.pow(2).mean(dim=-1, keepdim=True) + eps).rsqrt() * w


def rows(shapes):
    out = []
    for m, n in shapes:
        x = torch.randn(m, n, device="cuda")
        w = torch.randn(n, device="cuda")
        nbytes = 2 * x.numel() * x.element_size()  # read x once, write y once (weight is negligible)
        copy = best_copy(x.numel(), rounds=REPS, warmup=25, rep=100)
        copy_us, copy_bw = copy["ms"] * 1e3, copy["gbps"]
        peak = peak_gbps(torch.cuda.get_device_name())
        # Correctness first: a benchmark of a wrong kernel is worthless.
        torch.testing.assert_close(triton_softmax(x), torch.softmax(x, dim=1), rtol=1e-4, atol=1e-6)
        torch.testing.assert_close(triton_rmsnorm(x, w), eager_rmsnorm(x, w), rtol=1e-4, atol=1e-5)
        cases = {
            "softmax": {"triton": lambda: triton_softmax(x), "eager_naive": lambda: eager_softmax(x),
                        "torch.softmax": lambda: torch.softmax(x, dim=1)},
            "rmsnorm": {"triton": lambda: triton_rmsnorm(x, w), "eager_naive": lambda: eager_rmsnorm(x, w)},
        }
        if hasattr(torch.nn.functional, "rms_norm"):
            cases["rmsnorm"]["F.rms_norm"] = lambda: torch.nn.functional.rms_norm(x, (n,), w, eps=1e-6)
        for op, fns in cases.items():
            row = {"op": op, "shape": [m, n], "bytes": nbytes, "copy_us": round(copy_us, 2),
                   "copy_GBps": round(copy_bw, 1), "copy_kind": copy["kind"], "peak_GBps": peak}
            for name, fn in fns.items():
                us = bench(fn)
                row[f"{name}_us"] = round(us, 2)
                row[f"{name}_GBps"] = round(nbytes / us / 1e3, 1)
                row[f"{name}_pct_peak"] = None if not peak else round(100.0 * (nbytes / us / 1e3) / peak, 1)
            row["triton_vs_eager_naive"] = round(row["eager_naive_us"] / row["triton_us"], 2)
            if "torch.softmax_us" in row:
                row["triton_vs_torch"] = round(row["torch.softmax_us"] / row["triton_us"], 2)
            if "F.rms_norm_us" in row:
                row["triton_vs_torch"] = round(row["F.rms_norm_us"] / row["triton_us"], 2)
            out.append(row)
    return out


@triton.jit
def add_plain(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def add_persistent(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    num_tiles = tl.cdiv(n, BLOCK)
    for tile in range(pid, num_tiles, tl.num_programs(0)):
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def persistent(sizes, ks=(1, 4, 8), block=1024):
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    out = []
    for n in sizes:
        x = torch.randn(n, device="cuda")
        y = torch.randn(n, device="cuda")
        o = torch.empty_like(x)
        tiles = triton.cdiv(n, block)
        row = {"n": n, "tiles": tiles, "sms": sms, "block": block}
        add_plain[(tiles,)](x, y, o, n, BLOCK=block)
        torch.testing.assert_close(o, x + y)
        row["plain_us"] = round(bench(lambda: add_plain[(tiles,)](x, y, o, n, BLOCK=block)), 2)
        for k in ks:
            grid = (max(1, min(tiles, k * sms)),)
            o.zero_()
            add_persistent[grid](x, y, o, n, BLOCK=block)
            torch.testing.assert_close(o, x + y)
            row[f"persistent_{k}xSM_us"] = round(bench(lambda: add_persistent[grid](x, y, o, n, BLOCK=block)), 2)
        row["bytes"] = 3 * n * 4
        row["plain_GBps"] = round(row["bytes"] / row["plain_us"] / 1e3, 1)
        out.append(row)
    return out


def table(rows_, keys):
    widths = [max(len(k), *(len(str(r.get(k, ""))) for r in rows_)) for k in keys]
    lines = ["  ".join(k.rjust(w) for k, w in zip(keys, widths))]
    for r in rows_:
        lines.append("  ".join(str(r.get(k, "")).rjust(w) for k, w in zip(keys, widths)))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="folder for rows_and_persistent.json")
    ap.add_argument("--quick", action="store_true", help="small sizes only (a smoke run)")
    a = ap.parse_args(argv)
    if not torch.cuda.is_available():
        print("needs a CUDA GPU", file=sys.stderr)
        return 2
    started = time.time()
    shapes = [(4096, 781)] if a.quick else [(4096, 8192), (4096, 781)]
    sizes = [100_000] if a.quick else [100_000, 2**24 + 17, 2**27 + 17]
    result = {
        "device": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
        "python": platform.python_version(), "method": f"triton.testing.do_bench median, median of {REPS}",
        "rows": rows(shapes), "persistent": persistent(sizes),
    }
    result["elapsed_s"] = round(time.time() - started, 1)
    print(f"{result['device']}  torch {result['torch']}  triton {result['triton']}  ({result['method']})\n")
    keys = ["op", "shape", "copy_us", "triton_us", "eager_naive_us", "torch.softmax_us", "F.rms_norm_us",
            "copy_GBps", "triton_GBps", "triton_pct_peak", "triton_vs_eager_naive", "triton_vs_torch"]
    print(table(result["rows"], keys), "\n")
    pkeys = ["n", "tiles", "plain_us"] + [k for k in result["persistent"][0] if k.startswith("persistent_")]
    print(table(result["persistent"], pkeys))
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "rows_and_persistent.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2)
    print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
