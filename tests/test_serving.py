"""The serving drills (issue 22) as data: their float64 models, the grader changes they needed, the benchmark's pure
parts. Grades of the skeletons, references and submissions are in tests/test_submissions.py."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
import torch

import drills
from drills import serving_specs as S
from grader.judge.evaluate import footprint_counts, matches
from grader.run.runner import Verdict

ROOT = Path(__file__).resolve().parent.parent
SERVING = ("decode-attention", "quant-matmul", "conv2d")
# The constexprs a kernel launches with at the sizes below (what a Mistake's `meta` holds; quant-matmul: the first
# reference's, whose BLOCK_K 64 differs from the group 32 there, so the k // BLOCK_K mistake applies).
META = {"decode-attention": {"BLOCK_N": 32, "SPLIT_LEN": 64, "D": 64, "GROUP": 4},
        "quant-matmul": {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_K": 64, "GROUP_SIZE": 128},
        "conv2d": {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_C": 16}}
# A size (and kwargs) where every mistake of the drill applies.
WHERE = {"decode-attention": ((6, 8, 2, 64, 16, 131), {}),
         "quant-matmul": ((16, 129, 160), {"group_size": 32}),  # K = 160: five groups, and a K tail past 2 x 64
         "conv2d": ((1, 19, 9, 8, 33, 3, 3), {"stride": 2, "padding": 1})}


def inputs(name, size, seed=0, group_size=None):
    make = S._int4_inputs(group_size) if group_size else drills.get_spec(name).make_inputs
    return make(size, torch.Generator().manual_seed(seed))


@pytest.mark.parametrize("name", SERVING)
def test_every_named_mistake_is_distinguishable_from_the_right_answer(name):
    """Each Mistake model applies at its drill's probe size and differs from the reference there: a mistake that
    equals the right answer could never be named, and one that never applies is dead data."""
    spec = drills.get_spec(name)
    size, kwargs = WHERE[name]
    as64 = [t.double() for t in inputs(name, size, group_size=kwargs.get("group_size"))]
    ref = spec.reference(*as64, **kwargs)
    tol = spec.tolerance_for("float16")
    for m in spec.mistakes:
        assert m.fix.get("en") and m.fix.get("zh") and m.name_zh, (name, m.name)
        if m.reference is None:  # told by where it stores: its footprint must not be a right kernel's
            for fmt in (torch.contiguous_format, torch.channels_last):
                out = torch.empty(ref.shape, dtype=torch.float16, memory_format=fmt)
                offsets = m.footprint(out, *as64, meta=META[name], **kwargs)
                assert offsets is not None, (name, m.name)
                assert not (footprint_counts(out, offsets) == 1).all(), (name, m.name)
            continue
        wrong = m.reference(*as64, meta=META[name], **kwargs)
        assert wrong is not None, (name, m.name)
        assert wrong.shape == ref.shape, (name, m.name)
        assert not matches(wrong, ref, tol), (name, m.name)


def test_mistakes_that_need_a_constexpr_stay_silent_without_it():
    size, kwargs = WHERE["decode-attention"]
    as64 = [t.double() for t in inputs("decode-attention", size)]
    combine = [m for m in S.DECODE_MISTAKES if m.category == "rescale"]
    assert combine and all(m.reference(*as64, meta={}) is None for m in combine)


def test_int4_packing_round_trips_and_the_unpack_variants_differ():
    w4 = torch.arange(-8, 8).repeat(4).view(8, 8)
    packed = S._pack_int4(w4)
    assert packed.dtype == torch.uint8 and packed.shape == (4, 8)
    assert int(packed[0, 0]) == (int(w4[0, 0]) & 0xF) | ((int(w4[1, 0]) & 0xF) << 4)  # low nibble = even k
    assert torch.equal(S._unpack(packed.double()).long(), w4)
    assert not torch.equal(S._unpack(packed.double(), signed="unsigned").long(), w4)
    assert not torch.equal(S._unpack(packed.double(), swap=True).long(), w4)


@pytest.mark.parametrize("name", SERVING)
def test_the_eager_baseline_computes_the_drill(name):
    spec = drills.get_spec(name)
    size = spec.sizes[1]
    args = inputs(name, size)
    ref = spec.reference(*[t.double() for t in args])
    got = spec.eager(*args).double()
    assert (got - ref).abs().max() <= 2e-2 * max(1.0, float(ref.abs().max()))


def test_decode_inputs_mix_page_edge_lengths_and_shuffle_the_table():
    q, k, v, table, lens = inputs("decode-attention", (6, 8, 2, 64, 16, 131))
    assert lens.tolist() == [131, 1, 15, 16, 17, 37]
    assert table.dtype == torch.int32 and lens.dtype == torch.int32
    assert table.unique().numel() == table.numel() <= k.shape[0]  # every page used once, spares left over
    assert not torch.equal(table.view(-1), torch.arange(table.numel(), dtype=torch.int32))


def test_conv_probe_has_a_channels_last_x():
    spec = drills.get_spec("conv2d")
    probe = next(p for p in spec.probes if p.category == "strides")
    x, _ = probe.make_inputs(probe.sizes[0], torch.Generator().manual_seed(0))
    assert x.is_contiguous(memory_format=torch.channels_last) and not x.is_contiguous()


def conv_mistake(words):
    return next(m for m in S.CONV_MISTAKES if words in m.name)


def test_conv_padding_models_read_the_neighbour_at_the_tap_address():
    """An unmasked tap reads x's memory at its address: in NCHW, w = -1 is the previous row's last pixel; with h
    masked but not w, only column taps differ from the right answer; the three padding models differ pairwise."""
    x = torch.arange(1 * 2 * 3 * 4, dtype=torch.float64).view(1, 2, 3, 4)
    w = torch.zeros(1, 2, 1, 3, dtype=torch.float64)
    w[0, 0, 0, 0] = 1.0  # only tap (r, s) = (0, 0) of channel 0: y[0, 0, p, q] reads x[0, 0, p - 1, q - 1]
    none, h_only = conv_mistake("were not masked"), conv_mistake("checked h but not w")
    got = h_only.reference(x, w, meta={}, stride=1, padding=1)
    ref = S._conv_ref(x, w, padding=1)
    # output (p, q) = (1, 0) reads x[0, 0, 0, -1]: address 0·4 - 1 = -1, before x: 0 (the interpreter masks it);
    # output (2, 0) reads x[0, 0, 1, -1]: address 3, the previous row's last pixel x[0, 0, 0, 3]
    assert float(ref[0, 0, 2, 0]) == 0.0 and float(got[0, 0, 2, 0]) == float(x[0, 0, 0, 3])
    assert float(got[0, 0, 1, 0]) == 0.0
    args = [t.double() for t in inputs("conv2d", (2, 5, 10, 9, 7, 3, 3))]
    outs = [m.reference(*args, meta={}, padding=1) for m in S.CONV_MISTAKES if m.category == "mask"]
    assert len(outs) == 3
    tol = drills.get_spec("conv2d").tolerance_for("float16")
    for i in range(3):
        for j in range(i + 1, 3):
            assert not matches(outs[i], outs[j], tol)
    assert none.reference(*args, meta={}, padding=0) is None  # no padding: nothing to mask


def test_conv_output_footprints_are_what_the_wrong_geometry_stores():
    x, w = inputs("conv2d", (1, 3, 9, 8, 4, 3, 3))
    as64 = [x.double(), w.double()]
    out = torch.empty(1, 4, 5, 4, dtype=torch.float16)  # stride 2, padding 1: P = 5, Q = 4 (stride 1: 9, 8)
    rows = conv_mistake("rows were counted for stride 1").footprint(out, *as64, meta={}, stride=2, padding=1)
    assert rows.numel() == 1 * 4 * 9 * 8  # every lane of the stride-1 geometry, past the end included
    counts = footprint_counts(out, rows)
    assert counts.sum() < rows.numel() and counts.max() > 1
    split = conv_mistake("computed for stride 1: GEMM row").footprint(out, *as64, meta={}, stride=2, padding=1)
    assert split.numel() == out.numel()  # N·P·Q rows x K, each stored once, at the wrong pixels
    c = footprint_counts(out, split)
    assert (c == 0).any() and c.sum() <= out.numel()
    out1 = torch.empty(1, 4, 9, 8, dtype=torch.float16)  # stride 1: the stride-1 geometry is the right one
    assert all(m.footprint(out1, *as64, meta={}, stride=1, padding=1) is None
               for m in S.CONV_MISTAKES if m.footprint is not None)


def test_store_counts_and_a_footprint_agree_on_a_channels_last_output():
    """store_counts (what the interpreter saw stored) and footprint_counts (what a model predicts) count the same
    elements in the same logical order, whatever the output's memory format."""
    from grader.judge.evaluate import store_counts
    from grader.watch.memory import Memory

    mem = Memory("cpu")
    out = torch.empty(1, 3, 2, 2, dtype=torch.float16, memory_format=torch.channels_last)
    region = mem.add(out, "y", "alloc")
    storage = torch.tensor([0, 1, 1, 5])  # storage offsets, one written twice
    region.stored.append((0, 0, storage.numpy(), False))
    got = store_counts(out, mem)
    assert got is not None and got.tolist() == footprint_counts(out, storage).tolist()
    assert int(got.sum()) == 4 and int(got.max()) == 2
    assert got.reshape(1, 3, 2, 2)[0, 1, 0, 0] == 2 and got[1] == 0  # NHWC storage offset 1: channel 1 of pixel 0


def test_a_mistake_with_its_own_fix_is_reported_in_the_drills_words():
    from grader.reporting.report import explain

    m = S.DECODE_MISTAKES[2]
    detail = {"wrong": 959, "numel": 1280, "mistake": {"name": m.name, "category": m.category, "fix": m.fix,
                                                       "name_zh": m.name_zh}}
    v = Verdict(drill="decode-attention", file="x.py", device="cpu", passed=False, diagnosis="indexing",
                detail=detail)
    what, fix = explain(v, "en")
    assert "959 of 1280" in what and "KV head 0" in what and "h // GROUP" in fix
    what_zh, fix_zh = explain(v, "zh")
    assert "第 0 个 KV 头" in what_zh and "共用一个 KV 头" in fix_zh


def test_an_out_of_bounds_read_of_conv_x_is_told_as_padding():
    from grader.reporting.report import explain

    viol = {"kind": "load", "tensor": "input x", "numel": 1320, "side": "before", "lanes": 5, "first_elem": -3,
            "last_elem": -1, "program": 0}
    v = Verdict(drill="conv2d", file="x.py", device="cpu", passed=False, diagnosis="mask",
                detail={"violation": viol})
    what, fix = explain(v, "en")
    assert "before the start of `input x`" in what and "padding" in what and "(h >= 0)" in fix
    other = Verdict(drill="conv2d", file="x.py", device="cpu", passed=False, diagnosis="mask",
                    detail={"violation": dict(viol, tensor="input w")})
    assert "padding" not in explain(other, "en")[0]  # only x has the drill's own words


def test_a_uint8_input_has_quiet_guard_bands():
    from grader.judge.evaluate import guard_evidence
    from grader.watch.memory import Memory

    mem = Memory("cpu")
    mem.place(torch.arange(10, dtype=torch.uint8), "input w_packed")
    assert guard_evidence(mem) == []


def test_a_channels_last_allocation_is_a_known_region():
    from grader.watch.memory import Memory
    from grader.watch.torch_watch import TorchWatch

    class Recorder:
        depth = 0

    mem = Memory("cpu")
    with TorchWatch(mem, Recorder(), "learner.py"):
        y = torch.empty((2, 3, 4, 5), dtype=torch.float16, memory_format=torch.channels_last)
    region = mem.region_of(y)
    assert region is not None and region.kind == "alloc" and region.sentinel_filled
    assert y.stride() == (60, 1, 15, 3)  # still channels-last: the learner's layout is kept


def test_mock_gives_the_serving_drills_their_own_clock():
    from coach.mock.interview import DEFAULT_CODE_MINUTES, coding_minutes

    for name in SERVING:
        assert coding_minutes([name], None) > DEFAULT_CODE_MINUTES


def _benchmark():
    spec = importlib.util.spec_from_file_location("serving_bench", ROOT / "benchmarks" / "serving.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_imports_and_its_figures_are_the_drills():
    b = _benchmark()
    assert b.decode_kv_bytes(32, 32, 4096, 128) == 2 * 32 * 4096 * 32 * 128 * 2  # 2.1 GB of K and V
    assert b.quant_floor_bytes(1, 8192, 8192) == 8192 * 2 + 4096 * 8192 + 64 * 8192 * 2 + 8192 * 2
    assert b.conv_flops(32, 256, 56, 56, 256, 3, 3, 1, 1) == \
        S._conv_flops((32, 256, 56, 56, 256, 3, 3), stride=1, padding=1)
    for path in b.KNOWN_SLOW.values():
        assert path.exists(), path


def test_the_benchmark_gate_counts_runs_and_spread():
    b = _benchmark()
    runs = [{"ref": 1.0, "bar": 2.1}, {"ref": 1.0, "bar": 1.9}, {"ref": 0.5, "bar": 1.5}]
    g = b.gate(runs, "ref", "bar", 2.0)
    assert (g["passed"], g["runs"]) == (2, 3) and g["ratio_min"] == pytest.approx(1.9)
    assert b.spread([1.0, 1.1, 0.9]) == pytest.approx(0.2)
    s = b.summarise(runs)
    assert s["ref"]["median_ms"] == 1.0


def test_mock_draws_the_serving_drills_and_writes_their_skeletons(tmp_path):
    from coach.mock import interview as M
    from grader.reporting.texts import checkpoints_for

    tried = {n: {"attempts": 3, "passes": 3} for n in drills.names() if n not in SERVING}
    drawn = M.pick_drills({"drills": tried}, drills.names(), 3, seed=7, now=0.0)  # never tried come first
    assert sorted(drawn) == sorted(SERVING)
    qids = [cid for cid, _ in checkpoints_for("decode-attention")][:2]
    tasks, questions = M.prepare(tmp_path / "mock", list(SERVING), qids)
    assert [t.path.read_text(encoding="utf-8").splitlines()[0] for t in tasks] == [f"# drill: {n}" for n in SERVING]
    assert [q.cid for q in questions] == qids
    assert M.coding_minutes(list(SERVING), None) == 40


@pytest.mark.parametrize("name", SERVING)
def test_drill_bench_sweeps_each_serving_drill(monkeypatch, name):
    """`drill bench`'s sweep on CPU with timings faked: the reference's float64 answer (as float16) is checked like a
    grade, decode in GB/s from its byte model, the GEMM and the convolution in TFLOPS."""
    import json

    from grader.speed import bench, timing

    spec = drills.get_spec(name)
    monkeypatch.setattr(timing, "bench_ms", lambda fn, **kw: (fn(), 0.5)[1])
    monkeypatch.setattr(timing, "best_copy", lambda n, **kw: {"kind": "x.clone()", "ms": 0.01, "gbps": 4000.0,
                                                             "all_ms": {"x.clone()": 0.01}})
    exact = lambda *a, **kw: spec.reference(*[t.double() for t in a], **kw).half()  # noqa: E731
    providers = {"yours": exact, "eager": spec.eager}
    result = {"drill": name, "providers": list(providers), "rows": [], "flops": spec.flops is not None}
    size = spec.sizes[1]
    bench._sweep_sizes(spec, providers, [size], result, device="cpu")
    json.dumps(result)
    row = result["rows"][0]
    assert row["wrong"] == 0 and row["size"] == list(size)
    if spec.flops is None:
        assert row["bytes"] == spec.byte_model(size)["fused"] and "copy" in row
    else:
        assert row["tflops"]["yours"] == pytest.approx(spec.flops(size) / 0.5e-3 / 1e12)
    assert spec.bench_sizes


def _fake_speed(monkeypatch, spec, entry, times, copy_n=None):
    """speed_report's data flow on CPU with do_bench and the copy bandwidth faked (as tests/test_fusion_drills.py)."""
    from grader.speed import timing

    seq = iter(times)
    monkeypatch.setattr(timing, "bench_ms", lambda fn, **kw: (fn(), next(seq))[1])

    def copy_bw(n, name, say):
        if copy_n is not None:
            copy_n.append(n)
        return 4e12, True
    monkeypatch.setattr(timing, "copy_bandwidth", copy_bw)
    monkeypatch.setattr(timing, "WALL_CALLS", 1)
    return timing.speed_report(spec, entry, "fake", say=lambda m: None, device="cpu")


def _reference_entry(spec, dtype=torch.float16):
    return lambda *a, **kw: spec.reference(*[t.double() for t in a], **kw).to(dtype)


def test_quant_gate_divides_by_cublas_on_the_float16_weight_not_by_eager(monkeypatch):
    """The W4A16 gate is against what the unquantised model runs (cuBLAS on a float16 weight, dequantised once), not
    against eager dequant-then-matmul, which is 16 x slower here: a kernel 1.25 x the gate passes, 0.8 x fails."""
    import dataclasses

    from grader.families import fusion
    from grader.reporting.report import explain
    from grader.run.runner import ChildRun

    spec = dataclasses.replace(drills.get_spec("quant-matmul"), bench_size=(16, 256, 256), small_size=(4, 128, 128))
    assert [label for label, _ in spec.speed_refs] == [spec.speed_bar]
    need, eager, cublas = spec.speedup_min, 0.8, 0.05
    fast, slow_ms = cublas / (need * 1.25), cublas / (need * 0.8)
    t = _fake_speed(monkeypatch, spec, _reference_entry(spec), [fast, eager, cublas] * 5 + [0.01] * 6)
    assert t["bar"] == S.W4_CUBLAS and t["speedup"] == pytest.approx(need * 1.25) and t["category"] is None
    slow = _fake_speed(monkeypatch, spec, _reference_entry(spec), [slow_ms, eager, cublas] * 5 + [0.01] * 6)
    assert slow["category"] == "too-slow" and slow["speedup"] == pytest.approx(need * 0.8)
    v = Verdict(drill="quant-matmul", file="q.py", device="cuda", passed=True, diagnosis=None)
    fusion.apply_timing(v, [ChildRun("cuda", result={"timing": slow})])
    assert not v.passed and v.diagnosis == "too-slow" and v.detail["eager_ms"] == pytest.approx(cublas)
    what, fix = explain(v, "en")
    assert f"{need * 0.8:.2f}x the speed of cuBLAS on the float16 weight" in what and "50.0 µs" in what
    assert f"at least {need}x" in what and "eager" not in what
    assert "one scale row" in fix and "tl.atomic_add" in fix and "0x6408" in fix and "M = 256" in fix
    assert v.checks[-1]["name"] == "as fast as the speed gate asks (CUDA)" and not v.checks[-1]["passed"]
    what_zh, fix_zh = explain(v, "zh")
    assert f"cuBLAS on the float16 weight 的 {need * 0.8:.2f} 倍" in what_zh and "tl.atomic_add" in fix_zh


def test_the_cublas_bar_dequantises_once_per_weight():
    calls = []
    a, w, s = inputs("quant-matmul", (4, 48, 256))
    a, s = a.float(), s.float()
    real = S._dequant_fp16
    try:
        S._dequant_fp16 = lambda *x: calls.append(1) or real(*x)
        first = S._w4a16_cublas(a, w, s)
        S._w4a16_cublas(a, w, s)
        assert len(calls) == 1
        S._w4a16_cublas(a, w, s.clone())  # another tensor: built again
        assert len(calls) == 2
        s2 = s.clone()
        S._w4a16_cublas(a, w, s2)
        s2.mul_(2)  # changed in place: built again
        S._w4a16_cublas(a, w, s2)
        assert len(calls) == 4
    finally:
        S._dequant_fp16 = real
    assert torch.allclose(first, S._w4a16_eager(a, w, s))


def test_decode_gate_size_has_every_sequence_full_and_its_byte_model_agrees():
    spec = drills.get_spec("decode-attention")
    b, h, h_kv, d, page, l_max, l_min = spec.bench_size
    assert l_min == l_max
    small = (4, 2, 1, 64, 16, 64, 64)
    q, k, v, table, lens = inputs("decode-attention", small)
    assert lens.tolist() == [64] * 4
    assert S._decode_bytes(small)["fused"] == 2 * 4 * 64 * 1 * 64 * 2 + 2 * 4 * 2 * 64 * 2
    got = S._decode_sdpa_contiguous(q.double(), k.double(), v.double(), table, lens)
    assert torch.allclose(got, spec.reference(q.double(), k.double(), v.double(), table, lens))


def test_decode_gate_measures_copy_bandwidth_at_its_own_bytes_not_its_shapes_numel(monkeypatch):
    """(B, H, H_kv, D, PAGE, L, L) multiplies out to no buffer: the copy reference moves the kernel's bytes."""
    import dataclasses

    spec = dataclasses.replace(drills.get_spec("decode-attention"), bench_size=(4, 2, 1, 64, 16, 64, 64),
                               small_size=(2, 2, 1, 64, 16, 33))
    seen = []
    t = _fake_speed(monkeypatch, spec, _reference_entry(spec), [0.01, 0.05, 0.02] * 5 + [0.01] * 6, seen)
    assert t["category"] is None and t["bar"] is None and t["speedup"] == pytest.approx(5.0)
    assert seen == [t["fused_bytes"] // 8] and t["fused_bytes"] == S._decode_bytes(spec.bench_size)["fused"]


def test_the_conv_gate_times_a_channels_last_x_with_padding_1(monkeypatch):
    """speed_report's data flow for conv2d on CPU, timings faked: the entry point, eager and the correctness check
    of the timed output all get the spec's bench_inputs (channels-last x) and bench_kwargs (padding 1)."""
    import dataclasses

    from grader.speed import timing

    spec = dataclasses.replace(drills.get_spec("conv2d"), bench_size=(1, 4, 6, 5, 3, 3, 3),
                               small_size=(1, 2, 4, 4, 2, 3, 3))
    assert spec.speedup_min == 0.5 and spec.bench_kwargs == {"padding": 1}
    seen = []

    def entry(x, w, stride=1, padding=0):
        seen.append((x.is_contiguous(memory_format=torch.channels_last) and not x.is_contiguous(), padding))
        return S._conv_ref(x.double(), w.double(), stride=stride, padding=padding).half()

    seq = iter([0.6, 0.4] * timing.ROUNDS + [0.01] * 6)
    monkeypatch.setattr(timing, "bench_ms", lambda fn, **kw: (fn(), next(seq))[1])
    monkeypatch.setattr(timing, "WALL_CALLS", 1)
    t = timing.speed_report(spec, entry, "NVIDIA H200", say=lambda m: None, device="cpu")
    assert seen and all(s == (True, 1) for s in seen)
    assert t["wrong"] == 0 and t["speedup"] == pytest.approx(0.4 / 0.6) and t["category"] is None
    assert t["at"] == "1x4x6x5x3x3x3 (padding=1)"
    slow = iter([2.0, 0.4] * timing.ROUNDS + [0.01] * 6)
    monkeypatch.setattr(timing, "bench_ms", lambda fn, **kw: (fn(), next(slow))[1])
    assert timing.speed_report(spec, entry, "NVIDIA H200", say=lambda m: None, device="cpu")["category"] == "too-slow"


def test_a_spec_that_asks_for_device_time_has_every_row_timed_as_graph_replays(monkeypatch):
    """speed_graphed (a spec field, no drill name in the grader): the learner's row, eager and the cuBLAS bar are all
    timed by graphed_or_plain's method (CUDA-graph replays: device time, no host launches), and the report names it.
    The same spec without the field times every row with do_bench."""
    import dataclasses

    from grader.speed import timing

    base = dataclasses.replace(drills.get_spec("quant-matmul"), bench_size=(16, 256, 256), small_size=(4, 128, 128))
    for graphed in (True, False):
        spec = dataclasses.replace(base, speed_graphed=graphed)
        asked, timed = [], []

        def graphed_or_plain(rows, say):
            asked.append([label for label, _, _ in rows])
            return (lambda fn, **kw: (fn(), timed.append("graph"), 0.01)[-1]), "CUDA graph replay (device time)"
        monkeypatch.setattr(timing, "graphed_or_plain", graphed_or_plain)
        monkeypatch.setattr(timing, "bench_ms", lambda fn, **kw: (fn(), timed.append("do_bench"), 0.01)[-1])
        monkeypatch.setattr(timing, "copy_bandwidth", lambda n, name, say: (4e12, True))
        t = timing.speed_report(spec, _reference_entry(spec), "fake", say=lambda m: None, device="cpu", small=False)
        rows = 2 + len(spec.speed_refs)
        if graphed:
            assert asked == [[f"your `{spec.entry}`", "eager PyTorch", S.W4_CUBLAS]]
            assert timed == ["graph"] * rows * timing.ROUNDS and t["method"] == "CUDA graph replay (device time)"
        else:
            assert asked == [] and timed == ["do_bench"] * rows * timing.ROUNDS and t["method"] == "do_bench"
        assert t["wrong"] == 0 and t["category"] is None


# -- quant-matmul's large-M path (round 5): dequantise once, then a Triton float16 GEMM -----------------------------
QUANT_REF = ROOT / "solutions" / "quant_matmul.py"


def quant_reference():
    spec = importlib.util.spec_from_file_location("quant_reference_large_m", QUANT_REF)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_quant_cuda_sizes_grade_both_paths_of_the_reference():
    """LARGE_M splits the reference into the fused kernel and dequant + GEMM: the CUDA grade must reach both."""
    large_m = quant_reference().LARGE_M
    ms = [size[0] for size in drills.get_spec("quant-matmul").cuda_sizes]
    assert any(m >= large_m for m in ms) and any(m < large_m for m in ms), (large_m, ms)


def large_m_copy(tmp_path, name, *edits):
    """The reference with LARGE_M = 1 (every size on the dequant + GEMM path), plus text edits (old, new)."""
    src, n = re.subn(r"^LARGE_M = \d+", "LARGE_M = 1  # every size on the large-M path",
                     QUANT_REF.read_text(encoding="utf-8"), count=1, flags=re.M)
    assert n == 1
    for old, new in edits:
        assert src.count(old) == 1, old
        src = src.replace(old, new)
    path = tmp_path / name
    path.write_text(src, encoding="utf-8")
    return path


@pytest.mark.slow
def test_the_reference_large_m_path_passes_the_cpu_grade(tmp_path):
    """No CPU size reaches LARGE_M, so a copy with LARGE_M = 1 is graded: every size and probe (group 32, a
    transposed w_packed) through dequant_kernel and matmul_kernel."""
    from grader.run import runner
    v = runner.grade(large_m_copy(tmp_path, "quant_large_m.py"), drill="quant-matmul", device="cpu")
    assert v.passed, v.detail


@pytest.mark.slow
def test_the_large_m_path_with_unsigned_nibbles_is_named(tmp_path):
    """The grade above is on the large-M path: the same copy with dequant_kernel's nibbles read unsigned (nib | 0x6400
    minus 1024: 0..15) fails as the unsigned-nibble mistake."""
    from grader.run import runner
    path = large_m_copy(tmp_path, "quant_large_m_unsigned.py",
                        ("^ 0x6408).to(tl.float16, bitcast=True) - 1032.0  # k = 2r:",
                         "| 0x6400).to(tl.float16, bitcast=True) - 1024.0  # k = 2r:"),
                        ("^ 0x6408).to(tl.float16, bitcast=True) - 1032.0    # k = 2r + 1:",
                         "| 0x6400).to(tl.float16, bitcast=True) - 1024.0    # k = 2r + 1:"))
    v = runner.grade(path, drill="quant-matmul", device="cpu")
    assert not v.passed and v.diagnosis == "wrong-values", (v.diagnosis, v.detail)
    assert "unsigned" in str(v.detail), v.detail
