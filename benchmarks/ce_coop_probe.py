"""What limits the one-read cross-entropy (benchmarks/candidates/cross_entropy_coop.py) on a GPU: the step timed with
and without the wait for the sibling programs, beside the memory floor of one read and one write of the logits
(benchmark, not a test; the values of a WAIT=False step are wrong by design and are not checked).

    PYTHONPATH=. python benchmarks/ce_coop_probe.py FILE:NAME=VALUE,... [...] [--rounds 3] [--out DIR]

At (8192, 128256) bf16, 5 % of the targets ignore_index, `loss = cross_entropy(logits, target); loss.backward()`
per spec (and the same spec with WAIT=False), and `logits.mul_(1.0)` (in place: 2.10 GB read, 2.10 GB written, the
two passes the one-read kernel makes): µs per step as the median of --rounds do_bench medians, the functions
alternating, and TB/s at 2 passes (4.20 GB over the time). The gap between a spec and its WAIT=False twin is what
the wait costs; the gap between WAIT=False and mul_ is what the schedule itself costs (one program per SM, the
loads in flight per program).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from constants import load_with_constants, parse_spec  # noqa: E402
from training import CE_SHAPE, bench_us, ce_step  # noqa: E402


STREAMS = ((16384, 16, 1), (32768, 16, 1), (32768, 32, 1), (16384, 16, 2), (8192, 16, 4))


def stream_step(x, block: int, warps: int, per_sm: int):
    """x (T, V) scaled by 1 in place by per_sm x SMs persistent programs, each walking chunks of `block` elements
    of the flat tensor: the streaming rate of that many resident programs, with no reduction and no wait."""
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def _stream(X, n, BLOCK: tl.constexpr):
        for start in range(tl.program_id(0) * BLOCK, n, tl.num_programs(0) * BLOCK):
            offs = start + tl.arange(0, BLOCK)
            v = tl.load(X + offs, mask=offs < n)
            tl.store(X + offs, v * 1.0, mask=offs < n)

    flat = x.view(-1)
    grid = (per_sm * torch.cuda.get_device_properties(x.device).multi_processor_count,)
    return lambda: _stream[grid](flat, flat.numel(), BLOCK=block, num_warps=warps)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python benchmarks/ce_coop_probe.py")
    ap.add_argument("specs", nargs="+")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    import torch
    if not torch.cuda.is_available():
        print("benchmarks/ce_coop_probe.py needs a CUDA GPU")
        return 2
    t, v = CE_SHAPE
    gen = torch.Generator(device="cuda").manual_seed(0)
    logits = (torch.randn(CE_SHAPE, device="cuda", generator=gen) * 2).to(torch.bfloat16).requires_grad_()
    target = torch.randint(0, v, (t,), device="cuda", generator=gen)
    target[torch.rand(t, device="cuda", generator=gen) < 0.05] = -100
    work = logits.detach().clone()
    steps = {"logits.mul_(1.0) (1 read + 1 write)": lambda: work.mul_(1.0)}
    for block, warps, per_sm in STREAMS:
        steps[f"stream {block} x {warps} warps, {per_sm} per SM (1 read + 1 write)"] = stream_step(
            work, block, warps, per_sm)
    for spec in a.specs:
        path, consts = parse_spec(spec)
        label = " ".join(f"{k}={val}" for k, val in consts.items())
        for wait in (True, False):
            fn = load_with_constants(path, "cross_entropy", {**consts, "WAIT": wait})
            x = logits.detach().clone().requires_grad_()
            steps[f"{label} WAIT={wait}"] = ce_step(fn, x, target)
    seen = {k: [] for k in steps}
    for i in range(a.rounds):
        for k, s in steps.items():
            seen[k].append(bench_us(s))
        print(f"  round {i + 1}: " + ", ".join(f"{k} {seen[k][-1]:.0f}" for k in steps), flush=True)
    rows = []
    two = 2 * t * v * 2
    for k, us in seen.items():
        med = statistics.median(us)
        rows.append({"name": k, "us_median": med, "us_all": us, "tbs_at_2_passes": two / med / 1e6})
        print(f"  {k:70s} {med:8.0f} µs ({min(us):.0f} .. {max(us):.0f})  {two / med / 1e6:5.2f} TB/s at 2 passes")
    if a.out:
        Path(a.out).mkdir(parents=True, exist_ok=True)
        (Path(a.out) / "ce_coop_probe.json").write_text(json.dumps({"device": torch.cuda.get_device_name(),
                                                                     "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
