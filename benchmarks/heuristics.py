"""The `heuristics` drill on a real GPU: relu(2 * x) with the GXU's capped grid against the same kernel uncapped.

    PYTHONPATH=. python benchmarks/heuristics.py [--sizes 100000,16777233,134217745] [--rounds 5] [--out FILE.json]

Uses the reference solution's kernel and pick_config (solutions/heuristics.py). Rows per size, each timed with
triton.testing.do_bench(return_mode="median"), the figure being the median of --rounds such medians:
  gxu        the drill's launch: pick_config's grid (at most 32 programs), XBLOCK and num_warps
  per-sm     the same kernel, XBLOCK and num_warps, grid capped at the GPU's SM count
  uncapped   the same kernel, XBLOCK and num_warps, one program per tile (cdiv(n, XBLOCK))
  eager      torch.relu(x * 2): two aten kernels
Every row's output is checked against relu(2x). GB/s counts 8 bytes per element (one float32 read, one written).

Also prints where the installed Inductor decides XBLOCK, num_warps and the grid (coach/inductor/limits.py), so a run
on another torch (the H200 image has 2.11) shows that torch's lines. Without CUDA it prints those lines and says the
timings were skipped (exit 0), so it can be checked on a CPU machine.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def inductor_lines() -> list[dict]:
    import torch._inductor

    from coach.inductor.limits import find_lines
    return find_lines(Path(torch._inductor.__file__).parent)


def bench_us(fn, rounds: int) -> tuple[float, list[float]]:
    from triton.testing import do_bench
    per = [1e3 * float(do_bench(fn, warmup=25, rep=100, return_mode="median")) for _ in range(rounds)]
    return statistics.median(per), per


def run_size(n: int, rounds: int, sol, sms: int) -> dict:
    import torch
    import triton

    x = torch.randn(n, device="cuda", dtype=torch.float32)
    ref = torch.relu(x * 2)
    cfg = sol.pick_config(n)
    block, warps = cfg["XBLOCK"], cfg["num_warps"]
    tiles = triton.cdiv(n, block)
    out = torch.empty_like(x)

    def launch(programs):
        def fn():
            sol.mul_relu_kernel[(programs,)](x, out, n, XBLOCK=block, num_warps=warps)
        return fn

    rows = {"gxu": (cfg["grid"], launch(cfg["grid"])), "per-sm": (min(tiles, sms), launch(min(tiles, sms))),
            "uncapped": (tiles, launch(tiles)), "eager": (None, lambda: torch.relu(x * 2))}
    result = {"n": n, "XBLOCK": block, "num_warps": warps, "tiles": tiles, "rows": {}}
    for name, (programs, fn) in rows.items():
        out.zero_()
        fn()
        torch.cuda.synchronize()
        ok = bool(torch.equal(out, ref)) if programs is not None else True
        us, per = bench_us(fn, rounds)
        result["rows"][name] = {"programs": programs, "us": us, "per_round_us": per, "gbps": 8 * n / us / 1e3,
                                "values_ok": ok}
    base = result["rows"]["uncapped"]["us"]
    for r in result["rows"].values():
        r["vs_uncapped"] = r["us"] / base
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100000,16777233,134217745",
                    help="comma-separated element counts (default: 1e5, 2^24+17, 2^27+17)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", type=Path, help="write the results as JSON")
    a = ap.parse_args(argv)

    import torch
    import triton

    report = {"torch": torch.__version__, "triton": triton.__version__, "inductor_lines": inductor_lines()}
    print(f"torch {report['torch']}, triton {report['triton']}")
    print("Where the installed Inductor decides XBLOCK, num_warps and the grid:")
    for w in report["inductor_lines"]:
        where = f"{w['file']}:{w['where']}"
        print(f"  {where}: " + ("NOT FOUND in this torch" if w.get("missing") else f"line {w['line']}: {w['text']}"))
    if not torch.cuda.is_available():
        print("no CUDA device: timings skipped")
        report["skipped"] = "no CUDA device"
    else:
        import importlib.util
        spec = importlib.util.spec_from_file_location("heuristics_solution", ROOT / "solutions" / "heuristics.py")
        sol = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sol)
        props = torch.cuda.get_device_properties(0)
        report["device"], report["sms"] = torch.cuda.get_device_name(), props.multi_processor_count
        print(f"{report['device']}, {report['sms']} SMs; do_bench medians, median of {a.rounds} rounds")
        report["sizes"] = []
        for n in (int(s) for s in a.sizes.split(",") if s.strip()):
            r = run_size(n, a.rounds, sol, report["sms"])
            report["sizes"].append(r)
            print(f"n={n:,}  XBLOCK={r['XBLOCK']} num_warps={r['num_warps']} tiles={r['tiles']:,}")
            for name, row in r["rows"].items():
                programs = "" if row["programs"] is None else f"{row['programs']:>8,} programs"
                print(f"  {name:<9}{programs:>18}  {row['us']:9.1f} us  {row['gbps']:7.0f} GB/s  "
                      f"{row['vs_uncapped']:5.2f}x uncapped  values {'ok' if row['values_ok'] else 'WRONG'}")
    if a.out:
        a.out.write_text(json.dumps(report, indent=1), encoding="utf-8")
        print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
