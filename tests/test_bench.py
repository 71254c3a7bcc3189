"""`drill bench` and the figures it prints, without a GPU: the sweep's data flow on CPU with faked timings, tables
that fit 80 columns when piped, no figure above 100 % of a limit, copy measured at every n, static compile per n."""
import io
import json

import pytest
from rich.console import Console

from drills import get_spec
from grader.speed import bench
from grader.speed import timing

N27 = 2 ** 27


@pytest.fixture(autouse=True)
def same_environment():
    """Importing torch._inductor (the sweep's compile) sets TORCHINDUCTOR_CACHE_DIR in this process; the session's
    warm worker was started without it, so every later grade in the session would run cold (tests/test_worker.py)."""
    import os
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


def fake_result(peak=4800.0, wrong_at=None, too_fast=False):
    """A sweep as the child writes it, for fuse (providers: yours, eager, compile, compile†, one reference)."""
    providers = ["yours", "eager", "compile", "compile†", "eager x + y (add only)"]
    rows = []
    for n in (4096, 2 ** 20, 2 ** 26, N27):
        nbytes = 3 * n * 4
        ms = {"yours": nbytes / 4.26e12 * 1e3, "eager": nbytes * 5 / 3 / 4.1e12 * 1e3,
              "compile": nbytes / 4.2e12 * 1e3, "compile†": nbytes * 5 / 3 / 4.1e12 * 1e3,
              "eager x + y (add only)": nbytes / 4.15e12 * 1e3}
        if too_fast and n == N27:
            ms["yours"] = nbytes / 9.9e12 * 1e3
        rows.append({"n": n, "bytes": nbytes, "ms": ms, "gbps": {p: nbytes / (v / 1e3) / 1e9 for p, v in ms.items()},
                     "wrong": 3 if n == wrong_at else 0,
                     "copy": {"kind": "Triton copy (BLOCK 4096, 8 warps)" if n > 2 ** 20 else "x.clone()",
                              "ms": 2 * n * 4 / 4.1e12 * 1e3, "gbps": 4100.0}})
    return {"drill": "fuse", "device_name": "NVIDIA H200", "peak_gbps": peak, "providers": providers, "rows": rows,
            "dynamic_compiles_at": [4096, 2 ** 20]}


def render(result, lang="en", width=80) -> str:
    from coach import bench as bench_action
    buf = io.StringIO()
    con = Console(file=buf, width=width, force_terminal=False, no_color=True)
    import coach.bench
    old = coach.bench.console
    coach.bench.console = lambda **kw: con
    try:
        bench_action.print_tables(result, result["drill"], lang)
    finally:
        coach.bench.console = old
    return buf.getvalue()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_tables_fit_80_columns_and_no_number_is_cut(lang):
    result = fake_result(wrong_at=N27)
    text = render(result, lang)
    from rich.cells import cell_len
    assert max(cell_len(line) for line in text.splitlines()) <= 80, text
    assert "…" not in text
    for caption, head, rows in bench.tables(result, lang):
        assert caption in text
        for row in rows:
            for cell in row:
                assert cell in text, (cell, text)  # every figure, whole
    assert "134,217,728 ✗" in text and "ref1" in text and "eager x + y (add only)" in text


def test_columns_static_compile_dynamic_compile_copy_and_peak():
    head_time, head_bw = [t[1] for t in bench.tables(fake_result())]
    assert head_time == ["n", "yours", "eager", "compile", "compile†", "ref1"]
    assert head_bw == ["n", "yours", "eager", "compile", "copy", "% peak"]
    rows = bench.tables(fake_result())[1][2]
    assert rows[-1][-2] == "4100" and rows[-1][-1] == "89%"  # 4260 GB/s of 4800
    text = "\n".join(bench.legend(fake_result(), "en"))
    assert "dynamic=False" in text and "dynamic shapes" in text and "4800 GB/s" in text
    assert "x.clone() at 4,096, 1,048,576" in text and "Triton copy (BLOCK 4096, 8 warps) at 67,108,864" in text


def test_no_figure_above_100_percent_of_a_limit():
    assert timing.format_pct(99.6) == "100%" and timing.format_pct(100.01) == "!" and timing.format_pct(None) == "—"
    rows = bench.tables(fake_result(too_fast=True))[1][2]
    assert rows[-1][-1] == "!"  # 9.9 TB/s on a 4.8 TB/s GPU: not a measurement
    assert all(not c.endswith("%") or float(c[:-1]) <= 100 for r in rows for c in r)
    unknown = bench.tables(fake_result(peak=None))[1][2]
    assert unknown[0][-1] == "—"
    assert "DRILL_PEAK_GBPS" in "\n".join(bench.legend(fake_result(peak=None), "en"))


def test_peak_bandwidth_by_name_or_environment(monkeypatch):
    monkeypatch.delenv("DRILL_PEAK_GBPS", raising=False)
    assert timing.peak_gbps("NVIDIA H200") == 4800.0 and timing.peak_gbps("NVIDIA A10") is None
    monkeypatch.setenv("DRILL_PEAK_GBPS", "2039")
    assert timing.peak_gbps("NVIDIA A100-SXM4-80GB") == 2039.0


def test_speed_gate_table_shows_percent_of_peak_never_above_100():
    from grader.reporting.fusion_report import render_parts
    from grader.run.runner import Verdict
    rows = [{"label": "your `add_relu`", "role": "candidate", "ms": 0.0563, "gbps": 3576.0, "pct_peak": 74.6},
            {"label": "eager", "role": "eager", "ms": 0.087, "gbps": 2314.0, "pct_peak": 48.2},
            {"label": "cached", "role": "ref", "ms": 0.001, "gbps": 201000.0, "pct_peak": 4187.5}]
    v = Verdict(drill="fuse", file="f.py", device="cuda", passed=True, diagnosis=None)
    v.timing = {"n": 2 ** 24 + 17, "rounds": 5, "rows": rows, "byte_model": {"fused": 3, "eager": 5},
                "speedup": 1.545, "speedup_min": 1.3, "fused_bytes": 201326796, "copy_gbps": 3469.0,
                "copy_cached": True, "peak_gbps": 4800.0}
    buf = io.StringIO()
    con = Console(file=buf, width=100, no_color=True)
    for part in render_parts(v, get_spec("fuse"), "en"):
        con.print(part)
    text = buf.getvalue()
    assert "% peak" in text and "75%" in text and "4188" not in text and " ! " in text + " "
    assert "4800 GB/s" in text and "3469 GB/s" in text


def test_a_graphed_gate_says_so_names_the_row_in_chinese_and_states_no_unknown_prediction():
    """The title names the method the rows were timed by; the candidate's row is the learner's entry in their
    language; with no byte model the line predicts nothing (it once said "the byte model predicts ?x")."""
    from grader.reporting.fusion_report import render_parts
    from grader.run.runner import Verdict
    rows = [{"label": "your `layernorm`", "role": "candidate", "ms": 0.0983, "gbps": 3414.0, "pct_peak": 71.1},
            {"label": "eager PyTorch", "role": "eager", "ms": 0.1991, "gbps": 1686.0, "pct_peak": 35.1}]
    v = Verdict(drill="layernorm", file="f.py", device="cuda", passed=True, diagnosis=None)
    v.timing = {"n": 4096 * 8192, "at": "4096x8192", "rounds": 5, "rows": rows, "byte_model": {},
                "speedup": 2.03, "speedup_min": 1.5, "fused_bytes": 335675392, "copy_gbps": 3931.0,
                "copy_cached": False, "peak_gbps": 4800.0, "graphed": True}

    def shown(lang):
        buf = io.StringIO()
        con = Console(file=buf, width=120, no_color=True)
        for part in render_parts(v, get_spec("layernorm"), lang):
            con.print(part)
        return buf.getvalue()
    en, zh = shown("en"), shown("zh")
    assert "CUDA-graph replay" in en and "do_bench" not in en.split("\n")[0]
    assert "CUDA graph 重放" in zh and "do_bench" not in zh
    assert "your `layernorm`" in en and "你的 `layernorm`" in zh and "your `" not in zh
    assert "?" not in en and "?" not in zh and "predicts" not in en
    v.timing = dict(v.timing, graphed=False, byte_model={"fused": 3, "eager": 5})
    assert "do_bench" in shown("en") and "predicts 1.67x" in shown("en")


def test_the_sweeps_data_flow_on_cpu_with_fake_timings(monkeypatch):
    """The child's _sweep_sizes and _dynamic_sweep, on CPU: torch.compile and do_bench faked (no GPU here)."""
    import torch
    spec = get_spec("fuse")
    compiled, timed = [], []

    def fake_compile(fn, dynamic=None):
        compiled.append(dynamic)
        shapes = set()

        def run(*a, **kw):  # like Dynamo: compile at the first shape, recompile (dynamic) at the second, then reuse
            key = tuple(t.shape for t in a)
            if key not in shapes and len(shapes) < 2:
                shapes.add(key)
                torch._dynamo.utils.counters["frames"]["ok"] += 1
            return fn(*a, **kw)
        return run

    monkeypatch.setattr(torch, "compile", fake_compile)
    monkeypatch.setattr(torch._dynamo, "reset", lambda: None)
    monkeypatch.setattr(timing, "bench_ms", lambda fn, **kw: (fn(), timed.append(1), 0.001 * len(timed))[-1])
    monkeypatch.setattr(timing, "best_copy", lambda n, **kw: {"kind": "x.clone()", "ms": 0.01, "gbps": 4000.0,
                                                              "all_ms": {"x.clone()": 0.01}})
    providers = {"yours": spec.eager, "eager": spec.eager, "compile": spec.eager, "compile†": spec.eager}
    result = {"drill": "fuse", "providers": list(providers), "rows": [], "peak_gbps": 4800.0}
    sizes = [4096, 5000, 6007]
    bench._sweep_sizes(spec, providers, sizes, result, device="cpu")
    bench._dynamic_sweep(spec, sizes, result, device="cpu")
    assert [r["n"] for r in result["rows"]] == sizes
    assert compiled.count(False) == 3 and compiled[-1] is None  # a static compile per size, one swept compile
    assert result["dynamic_compiles_at"] == [4096, 5000]
    for r in result["rows"]:
        assert set(r["ms"]) == set(providers) and r["copy"]["gbps"] == 4000.0 and r["wrong"] == 0
        assert r["bytes"] == 3 * r["n"] * 4
    json.dumps(result)
    bench.tables(result)


def test_copy_reference_is_the_fastest_copy_at_that_n(monkeypatch):
    """best_copy's choice and arithmetic, on CPU: the Triton copy replaced by a torch copy, do_bench faked."""
    from grader.speed import copy_kernel
    calls = []
    monkeypatch.setattr(copy_kernel, "triton_copy", lambda src, dst, block, warps: (calls.append(1), dst.copy_(src)))
    fake_ms = {}

    def bench_ms(fn, **kw):
        before = len(calls)
        fn()
        return fake_ms["triton" if len(calls) > before else "clone"]

    monkeypatch.setattr(timing, "bench_ms", bench_ms)
    n = 1 << 16
    fake_ms.update(clone=0.050, triton=0.040)
    c = timing.best_copy(n, device="cpu")
    assert c["kind"].startswith("Triton copy") and c["ms"] == 0.040
    assert c["gbps"] == pytest.approx(2 * n * 4 / 40e-6 / 1e9) and len(c["all_ms"]) == 1 + len(copy_kernel.CONFIGS)
    fake_ms.update(clone=0.030)
    assert timing.best_copy(n, device="cpu")["kind"] == "x.clone()"


# -- shapes and TFLOPS: matmul, attention (and softmax's rows) -------------------------------------------------------
def test_shaped_drills_take_shapes():
    from coach.bench import parse_sizes
    mm, att, fuse = get_spec("matmul"), get_spec("attention"), get_spec("fuse")
    assert parse_sizes("1024x1024x1024, 4096×4096×512", mm) == [(1024, 1024, 1024), (4096, 4096, 512)]
    assert parse_sizes(None, mm) == list(mm.bench_sizes) and (4096, 4096, 4096) in parse_sizes(None, mm)
    assert parse_sizes(None, att)[-1] == (4, 16, 4096, 128)
    assert parse_sizes("2^12..2^13", fuse) == [4096, 8192]
    for bad in ("1024x1024", "4x16x512x64x1", "0x1x1", "axbxc"):
        with pytest.raises(ValueError):
            parse_sizes(bad, mm if "64" not in bad else att)


def k_loop(a, b):
    """What a tl.dot K loop computes: float32 partial products of BLOCK_K = 32 added in turn, stored as float16."""
    import torch
    acc = torch.zeros(a.shape[0], b.shape[1])
    for k in range(0, a.shape[1], 32):
        acc += a[:, k:k + 32].float() @ b[k:k + 32].float()
    return acc.half()


def shaped_sweep(monkeypatch, name, candidate, sizes, eager=None):
    spec = get_spec(name)
    monkeypatch.setattr(timing, "bench_ms", lambda fn, **kw: (fn(), 0.5)[1])
    monkeypatch.setattr(timing, "best_copy", lambda n, **kw: pytest.fail("no copy for a compute-bound drill"))
    providers = {"yours": candidate, "eager": eager or spec.eager, **dict(spec.speed_refs)}
    result = {"drill": name, "providers": list(providers), "rows": [], "flops": True, "peak_tflops": 989.4,
              "bar": spec.speed_refs[-1][0] if spec.speed_refs else "eager", "eager_is": spec.eager.__doc__}
    bench._sweep_sizes(spec, providers, sizes, result, device="cpu")
    json.dumps(result)
    return result


def test_a_matmul_sweep_is_in_tflops_and_checked_like_a_grade(monkeypatch):
    """Rows in TFLOPS at each shape, no copy timed, the output checked with the drill's error scale (a float32
    K loop at K = 4096 passes), a dropped K tail marked ✗."""
    sizes = [(256, 128, 4096), (33, 17, 65)]
    good = shaped_sweep(monkeypatch, "matmul", k_loop, sizes)
    assert [r["label"] for r in good["rows"]] == ["256x128x4096", "33x17x65"]
    for r, size in zip(good["rows"], sizes):
        assert r["wrong"] == 0 and "copy" not in r and r["size"] == list(size)
        assert r["tflops"]["yours"] == pytest.approx(2 * size[0] * size[1] * size[2] / 0.5e-3 / 1e12)
    head = bench.tables(good)[1][1]
    assert head == ["shape", "yours", "eager", "% peak", "% eager"]
    text = render(good)
    assert "256x128x4096 " in text and "✗" not in text and "torch.matmul(a, b): cuBLAS" in text
    bad = shaped_sweep(monkeypatch, "matmul", lambda a, b: k_loop(a[:, :-7], b[:-7]), sizes)
    assert all(r["wrong"] > 0 for r in bad["rows"]) and "256x128x4096 ✗" in render(bad)


def test_an_attention_sweep_is_measured_against_sdpa(monkeypatch):
    spec = get_spec("attention")
    ref = lambda q, k, v, causal=False: spec.reference(q.double(), k.double(), v.double()).half()  # noqa: E731
    result = shaped_sweep(monkeypatch, "attention", ref, [(1, 2, 40, 16)])
    time_head, tf_head = [t[1] for t in bench.tables(result)]
    assert time_head == ["shape", "yours", "eager", "ref1"] and tf_head[-1] == "% ref1"
    legend = "\n".join(bench.legend(result, "en"))
    assert "ref1     = F.scaled_dot_product_attention" in legend and "SDPA" not in tf_head
    assert "% ref1   = yours as a share of F.scaled_dot_product_attention" in legend and "989 TFLOPS" in legend
    assert "tensor core" in "\n".join(bench.legend(result, "zh"))


def test_a_reference_that_does_not_fit_is_reported_not_fatal(monkeypatch):
    """Eager attention's (S, S) scores, or the float64 reference, may not fit in GPU memory at S = 8192: the row
    says so (the reference's error, '?' for unchecked) and the sweep goes on; the candidate failing ends it."""
    import torch

    def oom(*a, **kw):
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 32.00 GiB")

    monkeypatch.setattr(bench, "wrong_elements", lambda *a: None)
    result = shaped_sweep(monkeypatch, "matmul", k_loop, [(64, 48, 32), (16, 16, 16)], eager=oom)
    assert [r["wrong"] for r in result["rows"]] == [None, None]
    assert "OutOfMemoryError" in result["rows"][0]["errors"]["eager"] and "eager" not in result["rows"][0]["ms"]
    text = render(result)
    assert "64x48x32 ?" in text and "eager at 64x48x32: OutOfMemoryError" in text and "did not fit" in text
    with pytest.raises(torch.OutOfMemoryError):
        shaped_sweep(monkeypatch, "matmul", oom, [(16, 16, 16)])


def test_wrong_elements_is_none_when_the_reference_runs_out_of_memory(monkeypatch):
    import dataclasses

    import torch

    def oom(*a, **kw):
        raise torch.OutOfMemoryError("CUDA out of memory")

    spec = dataclasses.replace(get_spec("matmul"), reference=oom)
    a, b = torch.ones(4, 4, dtype=torch.float16), torch.ones(4, 4, dtype=torch.float16)
    assert bench.wrong_elements(spec, [a, b], a @ b) is None
    assert bench.wrong_elements(get_spec("matmul"), [a, b], torch.ones(3, 4)) == 16  # wrong shape: all wrong


def test_tflops_tables_fit_80_columns_at_the_largest_shapes():
    from rich.cells import cell_len
    providers = ["yours", "eager", "compile", "F.scaled_dot_product_attention"]
    rows = [{"n": 4 * 16 * s * 64, "size": [4, 16, s, 64], "label": f"4x16x{s}x64", "wrong": 0,
             "ms": {p: 12.3456 for p in providers}, "tflops": {p: 471.3 for p in providers}}
            for s in (512, 16384)]
    result = {"drill": "attention", "providers": providers, "rows": rows, "flops": True, "peak_tflops": 989.4,
              "bar": "F.scaled_dot_product_attention", "device_name": "NVIDIA H200",
              "eager_is": get_spec("attention").eager.__doc__}
    for lang in ("en", "zh"):
        text = render(result, lang)
        assert max(cell_len(line) for line in text.splitlines()) <= 80, text
        assert "…" not in text and "4x16x16384x64" in text and "12345.6" in text and "100%" in text


def test_a_training_sweep_says_how_it_was_timed():
    """Rows timed by CUDA-graph replays (a training drill's steps, as its speed gate times them) say so in the
    caption, in both languages; a sweep where some size fell back to do_bench names those sizes under the table."""
    def result(methods):
        rows = [{"n": m * n, "size": [m, n], "label": f"{m}x{n}", "bytes": 10 * m * n, "method": method,
                 "ms": {"yours": 0.1, "eager": 0.2, "compile": 0.15}, "gbps": {"yours": 1.0, "eager": 0.5,
                                                                                 "compile": 0.7},
                 "peak_bytes": {"yours": 0, "eager": 1e6, "compile": 0}, "wrong": 0,
                 "copy": {"kind": "x.clone()", "ms": 0.01, "gbps": 4000.0}}
                for (m, n), method in zip(((1024, 1024), (4096, 8192)), methods)]
        return {"drill": "layernorm", "providers": ["yours", "eager", "compile"], "rows": rows, "peak_gbps": 4800.0}

    graphed = result(["graphed", "graphed"])
    assert "CUDA-graph replay" in bench.tables(graphed, "en")[0][0] and "forward + backward" in bench.tables(graphed)[0][0]
    assert "CUDA graph 重放" in bench.tables(graphed, "zh")[0][0]
    assert not any("do_bench" in line for line in bench.legend(graphed, "en"))
    mixed = result(["graphed", "do_bench"])
    assert "do_bench" in bench.tables(mixed)[0][0]
    assert any("do_bench" in line and "4096x8192" in line and "1024x1024" not in line
               for line in bench.legend(mixed, "en"))
    plain = result(["do_bench", "do_bench"])
    assert "do_bench" in bench.tables(plain)[0][0] and not any("captured" in x for x in bench.legend(plain, "en"))


def test_layernorms_sweep_is_float16_at_every_size_and_never_a_grading_size():
    import torch

    from grader.core.data import draw
    spec = get_spec("layernorm")
    assert len(spec.bench_sizes) >= 4 and not set(spec.bench_sizes) & set(spec.sizes)
    for size in spec.bench_sizes[:2]:
        x, w, b = draw(spec, size, 0, "cpu")
        assert x.dtype == w.dtype == b.dtype == torch.float16 and tuple(x.shape) == size
        m, n = size
        assert spec.byte_model(size)["fused"] == 5 * m * n * 2 + 4 * n * 2 + 4 * m * 4
    x, _, _ = draw(spec, spec.sizes[-1], 0, "cpu")
    assert x.dtype == torch.float32
