"""The speed candidates of issues 21 and 22 (benchmarks/candidates/) and the H200 batch's CPU-safe parts: each
candidate file computes the drill (Triton's interpreter against torch) in every kind of schedule the batch times,
a wrong unpack fails the same check, the winner file the sweep writes is the candidate with the winning constants,
and the gate calibration counts runs.

The kernels run in one subprocess (TRITON_INTERPRET must be set before triton is imported)."""
from __future__ import annotations

import functools
from pathlib import Path

import interp_script
import pytest

from benchmarks import gate_calibration
from benchmarks.constants import parse_spec, with_constants_text

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = r'''
import json, tempfile
from pathlib import Path
import torch
import torch.nn.functional as F
from benchmarks import serving_candidates as sc, serving_sweep
from benchmarks.constants import load_with_constants
from drills.serving_specs import _pack_int4
ROOT = Path(sys.argv[1])
QUANT = ROOT / "benchmarks" / "candidates" / "quant_matmul_awq.py"
CE = ROOT / "benchmarks" / "candidates" / "cross_entropy_persistent.py"
out = {}

def quant_case(M, N, K, group, transposed=False, swap_nibbles=False):
    g = torch.Generator().manual_seed(M * 7 + N)
    w4 = torch.randint(-8, 8, (K, N), generator=g)
    scales = (torch.rand(K // group, N, generator=g) * 0.02 + 0.005).half()
    a = torch.randn(M, K, generator=g).half()
    packed = _pack_int4(w4)
    if swap_nibbles:
        packed = ((packed & 0xF) << 4) | (packed >> 4)
    if transposed:
        packed = packed.t().contiguous().t()
    exp = a.double() @ (w4.double() * scales.double().repeat_interleave(group, dim=0))
    return (a, packed, scales), exp

def rel(out_, exp):
    return float((out_.double() - exp).abs().max() / exp.abs().max())

SCHEDULES = {
    "gemv split-K 4": {"GEMV_MAX_M": 16, "GEMV_TILES": (64, 32, 4, 4)},
    "awq split-K 4 magic": {"GEMV_MAX_M": 0, "TILES": ((None, (16, 64, 64, 4, 4, 3, True, False, False)),)},
    "swap split-K 2 int->float": {"GEMV_MAX_M": 0, "TILES": ((None, (16, 64, 128, 2, 4, 3, False, True, False)),)},
    "swap no split": {"GEMV_MAX_M": 0, "TILES": ((None, (32, 64, 64, 1, 4, 3, True, True, False)),)},
    "one-launch split-K 4": {"GEMV_MAX_M": 0, "TILES": ((None, (16, 64, 64, 4, 4, 3, True, False, True)),)},
    "one-launch split-K 2 swapped": {"GEMV_MAX_M": 0, "TILES": ((None, (32, 64, 64, 2, 4, 3, True, True, True)),)},
}
for name, consts in SCHEDULES.items():
    fn = load_with_constants(QUANT, "matmul_w4a16", consts)
    errs = []
    for M, N, K, group, t in ((1, 100, 256, 128, False), (16, 129, 384, 128, True), (37, 48, 160, 32, False)):
        args, exp = quant_case(M, N, K, group, t)
        for _ in range(2):  # twice: the one-launch split-K's counters must be back at 0 after a call
            o = fn(*args, group)
            errs.append(rel(o, exp) if o.dtype == torch.float16 and tuple(o.shape) == (M, N) else float("inf"))
    counters = fn.__globals__["_COUNTERS"]
    if counters and any(int(c.abs().sum()) for c in counters.values()):
        errs.append(float("inf"))
    out["quant " + name] = max(errs)
args, exp = quant_case(16, 129, 384, 128, swap_nibbles=True)
out["quant nibbles swapped"] = rel(load_with_constants(QUANT, "matmul_w4a16", {})(*args, 128), quant_case(16, 129, 384, 128)[1])
# round 4's kind eo (each byte once, two dots a step) and the two candidate reference files
EO = {"eo mode 0 split-K 2": dict(mode=0, SPLIT_K=2), "eo mode 1 swapped": dict(mode=1, swap=1),
      "eo mode 2 split-K 2 grouped": dict(mode=2, SPLIT_K=2, gm=2), "eo mode 1 strided a": dict(mode=1, asplit=0)}
for name, extra in EO.items():
    cfg = {"kind": "eo", "BM": 16, "BN": 32, "BK": 128, "SPLIT_K": 1, "asplit": 1, **extra}
    errs = []
    for M, N, K, group, t in ((1, 100, 256, 128, False), (16, 129, 384, 128, True), (37, 48, 160, 32, False)):
        args, exp = quant_case(M, N, K, group, t)
        errs.append(rel(sc.w4a16(*args, group, cfg), exp))
    out["quant " + name] = max(errs)
for f in ("quant_matmul_eo.py", "quant_matmul_eo_magic.py"):
    fn = load_with_constants(ROOT / "benchmarks" / "candidates" / f, "matmul_w4a16", {})
    errs = []
    for M, N, K, group, t in ((1, 100, 256, 128, False), (16, 129, 384, 128, True), (37, 48, 160, 32, False),
                              (130, 72, 256, 128, False)):
        args, exp = quant_case(M, N, K, group, t)
        errs.append(rel(fn(*args, group), exp))
    out["quant file " + f] = max(errs)
    args, _ = quant_case(16, 129, 384, 128, swap_nibbles=True)
    out["quant file nibbles swapped " + f] = rel(fn(*args, 128), quant_case(16, 129, 384, 128)[1])

for name, consts in {"reverse evict": {"REVERSE": True, "EVICT": True, "CPU_PROGRAMS": 2},
                     "forward 1024": {"REVERSE": False, "EVICT": False, "CPU_PROGRAMS": 3, "BLOCK_V": 1024},
                     "prefetch reverse 1024": {"PREFETCH": True, "REVERSE": True, "CPU_PROGRAMS": 2, "BLOCK_V": 1024},
                     "prefetch forward": {"PREFETCH": True, "REVERSE": False, "EVICT": False}}.items():
    fn = load_with_constants(CE, "cross_entropy", consts)
    worst = 0.0
    for t, v, ignored in ((7, 3001, 0.3), (5, 1000, 1.0), (1, 1000, 0.0)):
        g = torch.Generator().manual_seed(t)
        x = torch.randn(t, v, generator=g) * 3
        y = torch.randint(0, v, (t,), generator=g)
        y[torch.rand(t, generator=g) < ignored] = -100
        ref_in = x.clone().requires_grad_()
        ref = F.cross_entropy(ref_in, y)
        (ref * 2).backward()
        mine = x.clone().requires_grad_()
        loss = fn(mine, y)
        (loss * 2).backward()
        loss, ref = float(loss.detach()), float(ref.detach())
        if ignored == 1.0:
            worst = max(worst, 0.0 if loss != loss and ref != ref else float("inf"))
        else:
            worst = max(worst, abs(loss - ref) / abs(ref))
        worst = max(worst, float((mine.grad - ref_in.grad).abs().max()))
    out["ce " + name] = worst

small, large = serving_sweep.QUANT_CONFIGS[16][3], serving_sweep.QUANT_CONFIGS[4096][2]
gemv = next(c for c in serving_sweep.QUANT_CONFIGS[1] if c["kind"] == "alt_gemv")
best = {1: [(0.010, gemv), (0.020, small)], 16: [(0.030, small)], 4096: [(1.0, large)]}  # M = 128 not measured
with tempfile.TemporaryDirectory() as d:
    summary = serving_sweep.best_alt_file(best, d)
    fn = load_with_constants(Path(summary["file"]), "matmul_w4a16", {})
    default = dict(load_with_constants(QUANT, "matmul_w4a16", {}).__globals__["TILES"])
    args, exp = quant_case(1, 100, 256, 128)
    out["winner"] = {"tiles_ok": fn.__globals__["TILES"] == ((16, sc.alt_tiles(small)), (2047, default[2047]),
                                                             (None, sc.alt_tiles(large))),
                     "gemv_ok": fn.__globals__["GEMV_TILES"] == sc.alt_gemv_tiles(gemv)
                                and fn.__globals__["GEMV_MAX_M"] == 1,
                     "err": rel(fn(*args, 128), exp)}
print("RESULT " + json.dumps(out))
'''


@functools.lru_cache(maxsize=1)
def results() -> dict:
    return interp_script.run(SCRIPT)


@pytest.mark.parametrize("schedule", ["gemv split-K 4", "awq split-K 4 magic", "swap split-K 2 int->float",
                                      "swap no split", "one-launch split-K 4", "one-launch split-K 2 swapped"])
def test_quant_candidate_matches_torch_in_each_kind_of_schedule(schedule):
    """(1, 100, 256), (16, 129, 384) with w_packed transposed, (37, 48, 160) at group 32: N and K across tiles."""
    assert results()["quant " + schedule] < 2e-3


def test_a_wrong_unpack_fails_the_same_check():
    assert results()["quant nibbles swapped"] > 0.05


@pytest.mark.parametrize("schedule", ["eo mode 0 split-K 2", "eo mode 1 swapped", "eo mode 2 split-K 2 grouped",
                                      "eo mode 1 strided a", "file quant_matmul_eo.py",
                                      "file quant_matmul_eo_magic.py"])
def test_even_odd_candidates_match_torch(schedule):
    """Round 4's kind eo in each conversion (int -> float, by bits, by bits with the scale on the partial product)
    and the two candidate reference files, at the same sizes and group sizes as above (files also at M = 130)."""
    assert results()["quant " + schedule] < 2e-3


@pytest.mark.parametrize("f", ["quant_matmul_eo.py", "quant_matmul_eo_magic.py"])
def test_even_odd_files_fail_on_swapped_nibbles(f):
    assert results()["quant file nibbles swapped " + f] > 0.05


@pytest.mark.parametrize("schedule", ["reverse evict", "forward 1024", "prefetch reverse 1024", "prefetch forward"])
def test_cross_entropy_candidate_matches_torch_loss_and_gradient(schedule):
    """Rows with ignore_index, an all-ignored batch (NaN loss, zero gradient), one row; loss * 2 backward."""
    assert results()["ce " + schedule] < 1e-5


def test_the_sweep_writes_the_winning_schedules_as_a_complete_file():
    w = results()["winner"]
    assert w["tiles_ok"] and w["gemv_ok"] and w["err"] < 2e-3


def test_constants_replace_one_line_and_multi_line_assignments():
    text = "A = 1  # note\nT = ((1, 2),\n     (3, 4))\nB = A\n"
    out = with_constants_text(text, {"A": 5, "T": ((7,),)})
    assert "A = 5" in out and "T = ((7,),)" in out and "(3, 4)" not in out and out.endswith("B = A\n")
    with pytest.raises(KeyError):
        with_constants_text(text, {"MISSING": 1})
    assert parse_spec("f.py:X=1,Y=True") == (Path("f.py"), {"X": 1, "Y": True})


def test_gate_calibration_counts_passes_and_factors():
    runs = [{"category": None, "speedup": 2.1, "candidate_us": 10, "bar_us": 21},
            {"category": "too-slow", "speedup": 1.4, "candidate_us": 15, "bar_us": 21},
            {"category": None, "speedup": 1.6, "candidate_us": 13, "bar_us": 21}]
    s = gate_calibration.summarise(runs, 1.5, [1.5, 2.0])
    assert s["passed"] == 2 and s["reach"] == {"1.5": 2, "2.0": 1} and s["runs"] == 3
    assert (s["min"], s["median"], s["max"]) == (1.4, 1.6, 2.1)
    assert "passed" not in gate_calibration.summarise(runs, None, [])


def test_the_gate_without_its_small_size_gives_the_same_verdict_and_times_nothing_more(monkeypatch):
    """speed_report(small=False), what the calibration repeats: the verdict's rows only (15 timings: 5 rounds of
    candidate, eager and cuBLAS), no draw or timing at the small size; the verdict is the full report's."""
    import dataclasses

    import torch

    import drills
    from grader.speed import timing

    spec = dataclasses.replace(drills.get_spec("quant-matmul"), bench_size=(16, 256, 256), small_size=(4, 128, 128))
    entry = lambda *a, **kw: spec.reference(*[t.double() for t in a], **kw).to(torch.float16)  # noqa: E731
    monkeypatch.setattr(timing, "copy_bandwidth", lambda n, name, say: (4e12, True))
    monkeypatch.setattr(timing, "WALL_CALLS", 1)
    reports = {}
    for small in (True, False):
        calls = []
        monkeypatch.setattr(timing, "bench_ms", lambda fn, **kw: (fn(), calls.append(1), [0.05, 0.8, 0.05][
            (len(calls) - 1) % 3] if len(calls) <= 15 else 0.01)[2])
        reports[small] = (timing.speed_report(spec, entry, "fake", say=lambda m: None, device="cpu", small=small),
                          len(calls))
    (full, n_full), (short, n_short) = reports[True], reports[False]
    assert n_short == 15 and n_full == 21 and short["small"] is None and full["small"]["device_us"]
    assert short["category"] == full["category"] and short["speedup"] == full["speedup"] == pytest.approx(1.0)


def test_eo_labels_and_launch_agree_on_every_switch(monkeypatch):
    """serving_sweep._eo leaves a switch out of a row's label when it has its default; eo_w4a16 must launch with that
    same default (batch K=1 of round 4 timed every eo row with a's strided halves because the two disagreed on
    ASPLIT). Every eo row of sets 4 and 4b, launched into a recorder instead of the kernel."""
    import torch

    from benchmarks import serving_candidates as sc
    from benchmarks import serving_sweep as sw
    launched = []

    class Recorder:
        def __getitem__(self, grid):
            return lambda *args, **kw: launched.append(kw)

    monkeypatch.setattr(sc, "_w4_eo", Recorder())
    a, w, s = torch.zeros(16, 256, dtype=torch.float16), torch.zeros(128, 64, dtype=torch.uint8), \
        torch.zeros(2, 64, dtype=torch.float16)
    rows = [c for m in (1, 16, 128, 4096) for c in sw.B4_CONFIGS[m] + sw.B4B_CONFIGS.get(m, []) if c["kind"] == "eo"]
    assert rows
    for cfg in rows:
        sc.eo_w4a16(a, w, s, 128, cfg)
        kw = launched[-1]
        label = sw.label(cfg)
        assert kw["ASPLIT"] == (0 if "asplit=0" in label else 1), label
        assert kw["SWAP"] == (1 if "swap=1" in label else 0), label
        assert kw["GROUP_M"] == int(cfg.get("gm", 1)) and ("gm=" in label) == (kw["GROUP_M"] != 1), label
        assert kw["UNROLL"] == int(cfg.get("unroll", 1)) and ("unroll=" in label) == (kw["UNROLL"] != 1), label
        assert f"mode={kw['MODE']}" in label, label
