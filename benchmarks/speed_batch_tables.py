"""Markdown tables from one run of benchmarks/h200_speed_batch.sh (its results.tar.gz unpacked, or its $OUT before
the tar): the quant sweep by M, the cross-entropy candidates, and every gate's calibration. For docs/; prints only.

    python benchmarks/speed_batch_tables.py DIR [--top 8]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

CUBLAS = "cublas fp16 (dequantised weight)"
NK, GROUP = 8192, 128


def quant_floor_us(m: int) -> float:
    return (m * NK * 2 + NK // 2 * NK + NK // GROUP * NK * 2 + m * NK * 2) / 4.8e12 * 1e6


def quant_tables(d: dict, top: int) -> str:
    out = [f"quant sweep, {d.get('device')}: µs median of the rounds [min .. max], x cuBLAS = cuBLAS / row"]
    for m, rows in d["us_per_round"].items():
        m = int(m)
        med = {k: statistics.median(v) for k, v in rows.items()}
        base = med.get(CUBLAS)
        out.append(f"\nM = {m} (bytes floor {quant_floor_us(m):.1f} µs)\n")
        out.append("| kernel | µs | min .. max | x cuBLAS |\n|---|---|---|---|")
        ranked = sorted(med, key=med.get)
        keep = ranked[:top] + [k for k in ranked[top:] if not k.startswith(("alt_", "k2", "evenodd", "awq", "swap"))]
        for k in keep:
            ratio = f"{base / med[k]:.2f}" if base else "-"
            out.append(f"| {k} | {med[k]:.1f} | {min(rows[k]):.1f} .. {max(rows[k]):.1f} | {ratio} |")
    best = d.get("best", {})
    if best:
        out.append(f"\nwinner file: {best.get('file')}\nconstants: {best.get('constants')}\npicked: {best.get('picked')}")
    return "\n".join(out)


def ce_table(d: dict) -> str:
    comp = next((r.get("us_median") for r in d["rows"] if r["name"].startswith("torch.compile")), None)
    eager = next((r for r in d["rows"] if r["name"].startswith("eager")), {})
    out = [f"cross-entropy {d.get('shape')} {d.get('dtype')}, {d.get('device')}, {d.get('date')}: fwd+bwd\n",
           "| function | µs median | min .. max | GB/s | peak extra | x torch.compile | x eager |",
           "|---|---|---|---|---|---|---|"]
    for r in sorted(d["rows"], key=lambda r: r.get("us_median", 1e18)):
        if "us_median" not in r:
            out.append(f"| {r['name']} | {r.get('error')} | | | | | |")
            continue
        peak = r.get("peak_extra_bytes")
        peak_s = f"{peak / 1e9:.3f} GB" if peak and peak > 1e8 else (f"{peak / 1e3:.1f} KB" if peak is not None else "-")
        out.append(f"| {r['name']} | {r['us_median']:.0f} | {r['us_min']:.0f} .. {r['us_max']:.0f} | {r['gbs']:.0f} | "
                   f"{peak_s} | {comp / r['us_median']:.2f} | "
                   f"{eager.get('us_median', float('nan')) / r['us_median']:.2f} |" if comp else f"| {r['name']} |")
    if d.get("best_candidate"):
        out.append(f"\nfastest candidate: {d['best_candidate']}")
    return "\n".join(out)


def gate_table(d: dict) -> str:
    out = [f"\n{d['drill']} gate (speedup_min {d['speedup_min']}, bench_size {d['bench_size']}), {d['device']}:\n",
           "| version | runs | pass the gate | reach | speedup min / median / max | µs | bar µs |",
           "|---|---|---|---|---|---|---|"]
    for label, s in d["summary"].items():
        passed = f"{s['passed']}/{s['runs']}" if "passed" in s else "-"
        reach = ", ".join(f">= {f}: {n}/{s['runs']}" for f, n in s["reach"].items())
        out.append(f"| {label} | {s['runs']} | {passed} | {reach} | {s['min']:.3f} / {s['median']:.3f} / "
                   f"{s['max']:.3f} | {s['candidate_us_median']:.1f} | {s['bar_us_median']:.1f} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--top", type=int, default=8)
    a = ap.parse_args(argv)
    root = Path(a.dir)
    q = root / "q" / "quant_sweep.json"
    if q.exists():
        print(quant_tables(json.loads(q.read_text()), a.top))
    c = root / "ce" / "cross_entropy.json"
    if c.exists():
        print("\n" + ce_table(json.loads(c.read_text())))
    for g in sorted((root / "gates").glob("gate_*.json")):
        print(gate_table(json.loads(g.read_text())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
