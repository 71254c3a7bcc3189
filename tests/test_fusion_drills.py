"""Fused drills (fuse, gelu): known-wrong and correct submissions end to end on CPU, plus the pure parts of the
bytes proof and the speed gate (timings faked: the real gate needs CUDA)."""
from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from drills import get_spec
from grader.families import fusion
from grader.speed import timing
from grader.judge.diagnose import classify, extra_bytes

ROOT = Path(__file__).resolve().parent.parent
SUBMISSIONS = ROOT / "tests" / "submissions"
FUSED = ("fuse", "gelu")


def submissions() -> list[tuple[Path, str]]:
    out = []
    for path in sorted(SUBMISSIONS.glob("*/*.py")):
        head = path.read_text(encoding="utf-8").splitlines()[:2]
        drill = re.match(r"# drill: (\S+)", head[0]).group(1)
        if drill in FUSED:
            out.append((path, re.match(r"# expect: (\S+)", head[1]).group(1)))
    return out


CASES = submissions() + [(ROOT / "solutions" / "fuse.py", "pass"), (ROOT / "solutions" / "gelu.py", "pass")]


def shipped_grades(tmp_path_factory):
    """Queued when the session starts (tests/conftest.py); test_submissions checks the same files."""
    return [(p, {"device": "cpu"}) for p, _ in CASES]


@pytest.fixture(scope="module")
def verdicts(verdict_of):
    """Every case's verdict, graded once per session."""
    return {p: verdict_of(p, device="cpu") for p, _ in CASES}


def test_the_submission_set_is_complete():
    expects = sorted(e for p, e in CASES if p.parent.name == "wrong")
    assert expects.count("fusion") == 3 and expects.count("torch-fallback") == 2
    assert expects.count("wrong-values") == 2 and expects.count("mask") == 1
    assert sum(1 for p, e in CASES if p.parent.name == "correct") >= 2


@pytest.mark.slow
@pytest.mark.parametrize("path,expect", CASES, ids=[f"{p.parent.name}/{p.stem}" for p, _ in CASES])
def test_submission_category(verdicts, path, expect):
    v = verdicts[path]
    if expect == "pass":
        assert v.passed, (v.diagnosis, v.detail)
        assert v.diagnosis is None
    else:
        assert not v.passed
        assert v.diagnosis == expect, (v.diagnosis, v.detail)


@pytest.mark.slow
def test_verdict_json_carries_the_bytes_proof(verdicts):
    v = verdicts[ROOT / "solutions" / "fuse.py"]
    data = json.loads(json.dumps(v.to_json(), default=str))
    assert data["launches"] == 1
    assert data["bytes_moved"] == {"n": 100000, "loaded": 800000, "stored": 400000, "total": 1200000,
                                   "output_bytes": 400000, "side": [], "side_bytes": 0, "into_bytes": 0,
                                   "restored": 0}
    assert data["bytes_model"] == {"n": 100000, "fused": 1200000, "eager": 2000000}
    assert data["timing"] is None  # CPU: no timing
    check = next(c for c in data["checks"] if c["name"].startswith("bytes moved"))
    assert check["passed"]


@pytest.mark.slow
def test_scratch_round_trip_is_named_by_bytes(verdicts):
    v = verdicts[SUBMISSIONS / "wrong" / "fuse_scratch_round_trip.py"]
    assert v.diagnosis == "fusion"
    assert v.detail["bytes_moved"] == 5 * 100000 * 4 and v.detail["extra"] == 2 * 100000 * 4
    assert v.launches == 1
    from grader.reporting.report import explain
    what, fix = explain(v, "en")
    assert "800,000" in what and "x + y" in what and "read back" in what
    # every figure is what was stored or loaded, and where: the scratch by name, the extra loads by size
    assert "stored into `torch.empty_like at line 23` (100000 float32, 400,000 B)" in what
    assert "400,000 B loaded beyond reading each input once" in what
    what_zh, _ = explain(v, "zh")
    assert "x + y" in what_zh and "800,000" in what_zh


@pytest.mark.slow
def test_cpu_report_says_the_bytes_proof_stands_in(verdicts):
    from rich.console import Console
    from grader.reporting.report import render
    v = verdicts[ROOT / "solutions" / "fuse.py"]
    console = Console(width=200, record=True, color_system=None)
    console.print(render(v, "en"))
    text = console.export_text()
    assert "bytes proof" in text and "800,000 B" in text and "stands in" in text


# -- the bytes proof, pure ------------------------------------------------------------------------------------------
def _ev(loaded, stored, n=1000, launches=1):
    model = get_spec("fuse").byte_model(n)
    return {"returned": "tensor", "torch_ops": [], "launches": [{"kernel": "k", "programs": 1, "block": 1024}] *
            launches, "bytes": {"loaded": loaded, "stored": stored}, "bytes_model": dict(model, n=n),
            "numel": n, "unwritten": 0, "wrong": 0}


def test_byte_models():
    assert get_spec("fuse").byte_model(100000) == {"fused": 1200000, "eager": 2000000}
    g = get_spec("gelu").byte_model(10)
    assert g == {"fused": 80, "eager": 880}


def test_exact_fused_bytes_pass_and_one_extra_read_fails():
    assert classify(_ev(8000, 4000), 1) == (None, {})
    cat, detail = classify(_ev(8000 + 4000, 4000 + 4000), 1)  # scratch: store t, load t back
    assert cat == "fusion" and detail["extra"] == 8000 and detail["bytes_moved"] == 20000
    assert extra_bytes(_ev(8000, 4000)) is None


def test_launch_count_is_checked_before_bytes():
    cat, detail = classify(_ev(16000, 8000, launches=2), 1)
    assert cat == "fusion" and detail["launches"] == 2 and "bytes_moved" not in detail


def test_out_of_bounds_lanes_are_a_mask_problem_not_fusion():
    ev = _ev(9000, 5000)
    ev["violations"] = [{"side": "after", "kind": "load", "first_elem": 9000, "last_elem": 9100, "numel": 9000}]
    assert classify(ev, 1)[0] == "mask"


def test_summarize_picks_the_largest_counted_call():
    calls = [dict(_ev(80, 40, n=10), category=None), dict(_ev(8000, 4000, n=1000), category=None),
             {"launches": [{}], "category": None}]
    s = fusion.summarize(calls)
    assert s["launches"] == 1 and s["bytes_moved"]["n"] == 1000 and s["bytes_moved"]["total"] == 12000


# -- the speed gate, pure (fake timings) ----------------------------------------------------------------------------
def test_median_of_medians_ignores_one_bad_round():
    assert timing.median_of_medians([1.0, 1.1, 9.0, 1.05, 0.95]) == 1.05
    assert timing.spread([1.0, 1.0, 1.1]) == pytest.approx(0.1)
    with pytest.raises(ValueError):
        timing.median_of_medians([])


BW = 3.47e12  # bytes/s: clone at 2^24+17 on the H200 (FACTS.md)
N = 2**24 + 17


def test_fused_speedup_passes_and_two_kernels_fail():
    fused, eager = 3 * N * 4, 5 * N * 4
    ok = timing.speed_verdict(fused / BW, eager / BW, fused, BW, 1.3)
    assert ok["category"] is None and ok["speedup"] == pytest.approx(5 / 3)
    slow = timing.speed_verdict(eager / BW, eager / BW, fused, BW, 1.3)  # two kernels: as slow as eager
    assert slow["category"] == "too-slow" and slow["speedup"] == pytest.approx(1.0)


def test_impossible_time():
    fused = 3 * N * 4
    floor = fused / BW
    assert timing.speed_verdict(floor * 0.95, floor * 2, fused, BW, 1.3)["category"] is None  # kernels may beat clone
    v = timing.speed_verdict(floor * 0.5, floor * 2, fused, BW, 1.3)
    assert v["category"] == "impossible-time" and v["floor_s"] == pytest.approx(floor)
    assert timing.speed_verdict(0.0, 1.0, fused, BW, 1.3)["category"] == "impossible-time"
    assert timing.speed_verdict(floor * 0.5, floor * 0.5, None, None, 1.3)["category"] == "too-slow"


def test_launch_bound_when_device_and_wall_disagree():
    assert timing.launch_bound(4.5, 7.2, 25.6, 20.3)  # FACTS.md, n=1e5 on the H200
    assert not timing.launch_bound(280, 469, 300, 480)


def test_bandwidth_cache_roundtrip_and_corruption(tmp_path):
    p = tmp_path / "bandwidth.json"
    assert timing.cached_bandwidth(p, "H200", N, "2.11") is None
    timing.store_bandwidth(p, "H200", N, "2.11", 3.47e12)
    assert timing.cached_bandwidth(p, "H200", N, "2.11") == 3.47e12
    assert timing.cached_bandwidth(p, "H100", N, "2.11") is None
    p.write_text("{not json")
    assert timing.cached_bandwidth(p, "H200", N, "2.11") is None
    timing.store_bandwidth(p, "H200", N, "2.11", 1e12)  # a corrupt cache is replaced
    assert timing.cached_bandwidth(p, "H200", N, "2.11") == 1e12


def test_bandwidth_cache_lives_in_drill_home(drill_home):
    assert timing.bandwidth_path() == drill_home / "bandwidth.json"


def _fake_gate(monkeypatch, spec, entry, times):
    """speed_report's whole data flow on CPU, with do_bench and the clone bandwidth faked."""
    seq = iter(times)
    monkeypatch.setattr(timing, "bench_ms", lambda fn, **kw: (fn(), next(seq))[1])
    monkeypatch.setattr(timing, "copy_bandwidth", lambda n, name, say: (BW, True))
    monkeypatch.setattr(timing, "WALL_CALLS", 2)
    spec = dataclasses.replace(spec, bench_size=4099)
    return timing.speed_report(spec, entry, "fake", say=lambda m: None, device="cpu")


def test_speed_report_data_flow_with_fake_timings(monkeypatch):
    import torch
    spec = get_spec("fuse")
    # per round: candidate, eager, eager add; then 3 + 3 small-size benches
    times = [0.030, 0.050, 0.030] * timing.ROUNDS + [0.0045] * 3 + [0.0072] * 3
    t = _fake_gate(monkeypatch, spec, lambda x, y: torch.relu(x + y), times)
    assert t["category"] is None and t["speedup"] == pytest.approx(5 / 3)
    assert [r["role"] for r in t["rows"]] == ["candidate", "eager", "ref"]
    assert t["rows"][2]["label"].startswith("eager x + y")
    assert t["wrong"] == 0 and t["small"]["device_us"]["candidate"] == pytest.approx(4.5)
    json.dumps(t)  # plain data


def test_speed_report_checks_the_timed_outputs(monkeypatch):
    import torch
    times = [0.030, 0.050, 0.030] * timing.ROUNDS + [0.004] * 6
    t = _fake_gate(monkeypatch, get_spec("fuse"), lambda x, y: x + y, times)  # relu missing, fast
    assert t["category"] == "wrong-values" and t["wrong"] > 0


@pytest.mark.parametrize("name", ["softmax", "rmsnorm"])
def test_row_drills_speed_gate_data_flow(monkeypatch, name):
    """Softmax and RMSNorm are timed at a shape (rows), not a numel: the gate's data flow at a small shape, with a
    torch stand-in for the kernel and timings faked (the H200 side: benchmarks/rows_and_persistent.py)."""
    spec = get_spec(name)
    # per round: candidate, eager, torch; then the small-size benches
    times = [0.071, 0.383, 0.143] * timing.ROUNDS + [0.005] * 3 + [0.02] * 3
    seq = iter(times)
    monkeypatch.setattr(timing, "bench_ms", lambda fn, **kw: (fn(), next(seq))[1])
    monkeypatch.setattr(timing, "copy_bandwidth", lambda n, name, say: (BW, True))
    monkeypatch.setattr(timing, "WALL_CALLS", 1)
    small = dataclasses.replace(spec, bench_size=(3, 300), small_size=(2, 129))
    ref_entry = lambda *a, **kw: spec.reference(*[t.double() for t in a], **kw).float()  # noqa: E731
    t = timing.speed_report(small, ref_entry, "fake", say=lambda m: None, device="cpu")
    assert t["size"] == (3, 300) and t["n"] == 900 and t["small"]["n"] == 258
    assert t["category"] is None and t["speedup"] == pytest.approx(0.383 / 0.071)
    assert [r["role"] for r in t["rows"]] == ["candidate", "eager", "ref"]
    assert t["fused_bytes"] == 2 * 900 * 4 and t["wrong"] == 0
    json.dumps(t)


def test_a_grader_failure_while_timing_is_not_the_learners(tmp_path):
    from grader.run.child import run_timing
    learner = str(tmp_path / "mine.py")
    spec = dataclasses.replace(get_spec("softmax"), bench_size="not a shape")  # the grader side breaks
    t = run_timing(spec, lambda x: x, "fake", learner)
    assert t["category"] is None and t["skipped"]


def test_timing_turns_a_pass_into_too_slow():
    from grader.run.runner import ChildRun, Verdict
    v = Verdict(drill="fuse", file="f.py", device="cuda", passed=True, diagnosis=None)
    t = {"category": "too-slow", "speedup": 1.02, "speedup_min": 1.3, "n": N, "floor_s": 1e-5, "copy_gbps": 3470,
         "rows": [{"ms": 0.058}, {"ms": 0.059}]}
    fusion.apply_timing(v, [ChildRun("cuda", result={"timing": t}), ChildRun("cpu", result={})])
    assert not v.passed and v.diagnosis == "too-slow" and v.timing is t
    assert v.checks[-1]["name"].startswith("faster than eager") and not v.checks[-1]["passed"]
    from grader.reporting.report import explain
    what, _ = explain(v, "en")
    assert "1.02x" in what and "1.3x" in what and "58.0 µs" in what


# -- drill bench: the parts that run without a GPU ------------------------------------------------------------------
def test_bench_sizes_parse():
    from coach.bench import parse_sizes
    assert parse_sizes("4096,65536") == [4096, 65536]
    assert parse_sizes("2^12..2^14") == [4096, 8192, 16384]
    assert parse_sizes(None)[0] == 4096 and parse_sizes(None)[-1] == 2 ** 27


def test_bench_says_it_needs_a_gpu(monkeypatch, capsys):
    from coach import bench as bench_action
    from grader.run import proc
    monkeypatch.setattr(proc, "cuda_available", lambda: False)
    from coach.errors import DrillError
    with pytest.raises(DrillError) as e:  # one line on stderr and exit 2 once click shows it (coach/errors.py)
        bench_action.run(ROOT / "solutions" / "fuse.py", None, None, None, False, "en")
    assert e.value.exit_code == 2 and "GPU" in e.value.text("en") and "bytes" in e.value.text("en")
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("name,bench,small", [("matmul", (64, 48, 32), (16, 16, 16)),
                                              ("matmul-epilogue", (64, 48, 32), (16, 16, 16)),
                                              ("attention", (1, 2, 64, 16), (1, 1, 16, 16))])
def test_compute_bound_gate_reports_tflops_not_a_copy(monkeypatch, name, bench, small):
    """Matmul and attention are judged in TFLOPS against the tensor-core peak: no copy buffer of the shape's
    "numel" (4096^3 for a matmul) is made, and a time under the compute floor is impossible."""
    import io

    from rich.console import Console

    from grader.reporting import fusion_report
    spec = dataclasses.replace(get_spec(name), bench_size=bench, small_size=small)
    monkeypatch.setattr(timing, "copy_bandwidth", lambda *a: pytest.fail("no copy for a compute-bound drill"))
    monkeypatch.setattr(timing, "WALL_CALLS", 1)
    ref_entry = lambda *a, **kw: spec.reference(*[t.double() for t in a], **kw).half()  # noqa: E731
    rows = 2 + len(spec.speed_refs)
    seq = iter([0.5, 1.0] + [0.7] * (rows - 2) + [0.5, 1.0] + [0.7] * (rows - 2) + [0.5] * (rows * 3) + [0.1] * 6)
    monkeypatch.setattr(timing, "bench_ms", lambda fn, **kw: (fn(), next(seq))[1])
    t = timing.speed_report(spec, ref_entry, "NVIDIA H200", say=lambda m: None, device="cpu")
    assert t["flops"] == spec.flops(bench) and t["peak_tflops"] == pytest.approx(989.4)
    assert t["rows"][0]["tflops"] == pytest.approx(spec.flops(bench) / 0.5e-3 / 1e12)
    assert t["copy_gbps"] is None and t["wrong"] == 0
    json.dumps(t)
    # a time below flops / peak is not a measurement
    fast = iter([1e-9, 1.0] + [0.7] * (rows - 2) * 1 + [1e-9, 1.0] + [0.7] * (rows - 2) + [1e-9] * (rows * 3) + [0.1] * 6)
    monkeypatch.setattr(timing, "bench_ms", lambda fn, **kw: (fn(), next(fast))[1])
    assert timing.speed_report(spec, ref_entry, "NVIDIA H200", say=lambda m: None, device="cpu")["category"] == \
        "impossible-time"
    v = type("V", (), {"timing": t, "bytes_moved": None, "bytes_model": None, "passed": True, "device": "cuda",
                       "diagnosis": None})()
    out = io.StringIO()
    for part in fusion_report.render_parts(v, spec, "en"):
        Console(file=out, width=100).print(part)
    assert "TFLOPS" in out.getvalue() and "GB/s" not in out.getvalue()


def test_compute_bound_gate_checks_the_timed_output_like_the_graded_calls(monkeypatch):
    """A float32-accumulated matmul at K = 4096 is off from float64 by ~1e-4 in absolute terms: the timed output is
    checked with atol x the drill's error scale, as every graded call is (found on the H200: the reference solution
    failed `wrong-values` on its own timed output). The size is named by its shape, never by a 4096^3 "n"."""
    import torch
    spec = dataclasses.replace(get_spec("matmul"), bench_size=(256, 128, 4096), small_size=(16, 16, 16))
    monkeypatch.setattr(timing, "WALL_CALLS", 1)
    monkeypatch.setattr(timing, "bench_ms", lambda fn, **kw: (fn(), 1.0)[1])

    def k_loop(a, b):  # what a tl.dot K loop computes: float32 partial products of BLOCK_K = 32, added in turn
        acc = torch.zeros(a.shape[0], b.shape[1])
        for k in range(0, a.shape[1], 32):
            acc += a[:, k:k + 32].float() @ b[k:k + 32].float()
        return acc.half()

    t = timing.speed_report(spec, k_loop, "NVIDIA H200", say=lambda m: None, device="cpu")
    assert t["wrong"] == 0 and t["category"] is None and t["out_numel"] == 256 * 128
    assert t["at"] == "256x128x4096" and t["small"]["at"] == "16x16x16"
    bare = timing.speed_report(dataclasses.replace(spec, error_scale=None), k_loop, "NVIDIA H200",
                               say=lambda m: None, device="cpu")
    assert bare["wrong"] > 0  # the bare float16 tolerance: what failed the reference on the H200
    # ... and a wrong one still fails: the K tail dropped
    dropped = lambda a, b: k_loop(a[:, :4064], b[:4064])  # noqa: E731
    bad = timing.speed_report(spec, dropped, "NVIDIA H200", say=lambda m: None, device="cpu")
    assert bad["category"] == "wrong-values" and bad["wrong"] > 0.9 * 256 * 128


def test_a_slow_matmul_is_told_about_tensor_cores_not_bytes():
    from grader.reporting.report import explain
    from grader.run.runner import ChildRun, Verdict
    v = Verdict(drill="matmul", file="f.py", device="cuda", passed=True, diagnosis=None)
    flops = 2 * 4096 ** 3
    t = {"category": "too-slow", "speedup": 0.05, "speedup_min": 0.5, "n": 4096 ** 3, "at": "4096x4096x4096",
         "floor_s": flops / 989.4e12, "flops": flops, "peak_tflops": 989.4, "rows": [{"ms": 3.7}, {"ms": 0.18}]}
    fusion.apply_timing(v, [ChildRun("cuda", result={"timing": t})])
    assert v.diagnosis == "too-slow" and v.checks[-1]["detail"].startswith("0.05x eager at 4096x4096x4096")
    what, fix = explain(v, "en")
    assert "4096x4096x4096" in what and "TFLOPS" in what and "n=" not in what
    assert "tl.dot" in fix and "memory-bound" not in fix
    what_zh, fix_zh = explain(v, "zh")
    assert "4096x4096x4096" in what_zh and "tensor core" in fix_zh
    v2 = Verdict(drill="matmul", file="f.py", device="cuda", passed=True, diagnosis=None)
    fusion.apply_timing(v2, [ChildRun("cuda", result={"timing": {**t, "category": "impossible-time"}})])
    what, _ = explain(v2, "en")
    assert "989 TFLOPS" in what and "copy bandwidth" not in what


def test_speed_gate_checks_an_in_place_gradient_on_fresh_inputs(monkeypatch):
    """Liger's cross-entropy writes its gradient over the logits: after the gate's timed steps the inputs hold the
    gradient, so its values are checked on one more call on fresh copies (on the H200 the gate called the reference
    `wrong-values` for it). The known-wrong side: a stand-in that returns a wrong loss still fails."""
    import torch

    spec = dataclasses.replace(get_spec("cross-entropy"), bench_size=(4, 300), small_size=(2, 100))

    class InPlace(torch.autograd.Function):
        @staticmethod
        def forward(ctx, logits, target, ignore_index, bias):
            valid = target != ignore_index
            loss = torch.nn.functional.cross_entropy(logits.float(), target, ignore_index=ignore_index)
            g = torch.softmax(logits.float(), -1)
            g[torch.arange(len(target))[valid], target[valid]] -= 1
            logits.copy_(g * valid[:, None] / valid.sum())  # the gradient over the logits, as Liger does
            ctx.save_for_backward(logits)
            return (loss + bias).to(logits.dtype)

        @staticmethod
        def backward(ctx, dy):
            (g,) = ctx.saved_tensors
            return g * dy, None, None, None

    monkeypatch.setattr(timing, "bench_ms", lambda fn, **kw: (fn(), 0.01)[1])
    monkeypatch.setattr(timing, "graphed_or_plain", lambda rows, say: (timing.bench_ms, "do_bench"))
    monkeypatch.setattr(timing, "copy_bandwidth", lambda n, name, say: (BW, True))
    monkeypatch.setattr(timing, "WALL_CALLS", 1)
    right = lambda logits, target, ignore_index=-100: InPlace.apply(logits, target, ignore_index, 0.0)  # noqa: E731
    t = timing.speed_report(spec, right, "fake", say=lambda m: None, device="cpu", small=False)
    assert t["wrong"] == 0 and t["category"] != "wrong-values"
    wrong = lambda logits, target, ignore_index=-100: InPlace.apply(logits, target, ignore_index, 1.0)  # noqa: E731
    t = timing.speed_report(spec, wrong, "fake", say=lambda m: None, device="cpu", small=False)
    assert t["category"] == "wrong-values"
