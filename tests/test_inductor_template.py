"""`drill inductor` for a drill with compile options (coach/inductor/template.py): the matmul-epilogue drill under
max-autotune. Real Inductor output only: two recorded fixtures and a real compile on this CPU machine.

Fixtures (torch 2.13 + triton 3.9, CPU, Triton through the private switch, max-autotune-no-cudagraphs with
test_configs.max_mm_configs=2 and benchmark_epilogue_fusion=False):
- inductor_mm_template_cpu_triton_torch213.txt: max_autotune_gemm_backends="TRITON", recorded by
  `python -m coach.inductor.child --drill matmul-epilogue --device cpu --cold DIR` (the command's own capture);
- inductor_mm_unrestricted_cpu_triton_torch213.txt: Inductor's default GEMM backends; ATen's addmm won the
  autotuning (24 ms against 2.6 s for the interpreted template), so relu went to a separate pointwise kernel.
"""
from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

import cli
import drills
from coach.inductor import capture as ind
from coach.inductor import child
from coach.inductor import template as it
from coach.inductor import view as inductor_view
from coach.inductor.child import NO_TRITON_ENV
from grader.core.spec import CompileOptions

FIXTURES = Path(__file__).parent / "fixtures"
TEMPLATE_CODE = (FIXTURES / "inductor_mm_template_cpu_triton_torch213.txt").read_text()
UNRESTRICTED_CODE = (FIXTURES / "inductor_mm_unrestricted_cpu_triton_torch213.txt").read_text()
SOLUTION = Path(cli.__file__).parent / "solutions" / "matmul_epilogue.py"


def _line(kernel, kind):
    lines = kernel.shown.split("\n")
    return [lines[n - 1].strip() for n in kernel.lines_of(kind)]


def test_template_pieces_in_recorded_output():
    [k] = ind.extract_kernels(TEMPLATE_CODE)
    assert k.name == "triton_tem_fused_add_relu_0" and sorted(k.aten_ops) == ["add", "relu"]
    assert ind.decode_kernel_name(k.name, k.aten_ops)["category"] == "tem"
    assert it.is_matmul(k)
    assert _line(k, "k-loop") == ["for k_idx in range(0, tl.cdiv(K, BLOCK_K)):"]
    assert all("tl.dot(" in line for line in _line(k, "dot")) and len(k.lines_of("dot")) == 1
    assert [l.split("=")[0].strip() for l in _line(k, "k-mask")] == ["a_mask", "b_mask"]
    assert _line(k, "edge-mask") == ["mask = (idx_m < M) & (idx_n < N)"]
    assert [p.pointer for p in k.pieces if p.kind == "load"] == ["A", "B"]  # in the K loop
    [bias] = [p for p in k.pieces if p.kind == "epilogue-load"]
    assert bias.pointer == "in_ptr0" and "idx_n" in bias.text  # one value per column
    assert _line(k, "epilogue-add") == ["tmp1 = acc + tmp0"]
    assert len(k.lines_of("relu")) == 1 and "maximum(" in _line(k, "relu")[0]
    assert [p.pointer for p in k.pieces if p.kind == "store"] == ["out_ptr1"]
    assert all("% M" in l or "% N" in l for l in _line(k, "wrap")) and len(k.lines_of("wrap")) == 4
    order = [k.lines_of(kind)[0] for kind in ("acc", "k-loop", "dot", "edge-mask", "epilogue-load", "epilogue-add",
                                              "relu", "store")]
    assert order == sorted(order)
    assert "M = 127" in _line(k, "baked") and "BLOCK_M : tl.constexpr = 16" in _line(k, "config")


def test_template_launch_matches_the_wrappers_grid():
    [k] = ind.extract_kernels(TEMPLATE_CODE)
    text = it.template_launch(k, "en")
    assert "cdiv(127, 16) x cdiv(129, 16) = 8 x 9" in text and "grid (72,)" in text
    [launch] = ind.wrapper_launch_lines(TEMPLATE_CODE, [k.name])
    assert ".run(arg2_1, arg0_1, arg1_1, buf1, 72, 1, 1," in launch  # the grid Inductor wrote
    assert "cdiv(127, 16) × cdiv(129, 16) = 8 × 9 个 16 × 16 的 tile" in it.template_launch(k, "zh")


def test_learner_matmul_lined_up_epilogue_to_epilogue():
    text, name, first = ind.learner_kernel_source(SOLUTION.read_text())
    mine = ind.kernel_pieces(text)
    kinds = {p.kind for p in mine}
    assert {"k-loop", "dot", "k-mask", "edge-mask", "epilogue-load", "epilogue-add", "relu", "store"} <= kinds
    assert "wrap" not in kinds  # the reference masks M/N on its loads instead
    [k] = ind.extract_kernels(TEMPLATE_CODE)
    rows = {r["piece"]: r for r in ind.line_up(k.pieces, mine, it.ROWS)}
    assert rows["epilogue-load"]["mine"][0].text.startswith("bias = tl.load(bias_ptr")
    assert rows["epilogue-add"]["mine"][0].text.startswith("acc = acc + bias")
    assert rows["relu"]["mine"][0].text == "acc = tl.maximum(acc, 0.0)"
    assert rows["wrap"]["inductor"] and not rows["wrap"]["mine"]
    assert rows["load 1"]["mine"][0].pointer == "a_ptrs" and rows["load 2"]["mine"][0].pointer == "b_ptrs"


def test_matmul_pieces_of_a_kernel_written_for_this_test():
    """Other spellings: `acc += bias`, relu as tl.where, masks held in names; and relu before the bias is seen as
    such (the `epilogue` mistake), not relabelled."""
    src = (
        "@triton.jit\n"
        "def k(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
        "    pid_m = tl.program_id(0)\n"
        "    pid_n = tl.program_id(1)\n"
        "    rm = pid_m * BM + tl.arange(0, BM)\n"
        "    rn = pid_n * BN + tl.arange(0, BN)\n"
        "    rk = tl.arange(0, BK)\n"
        "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
        "    for k0 in range(0, K, BK):\n"
        "        km = (k0 + rk) < K\n"
        "        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :], mask=km[None, :], other=0.0)\n"
        "        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :], mask=km[:, None], other=0.0)\n"
        "        acc += tl.dot(a, b)\n"
        "    out_mask = (rm[:, None] < M) & (rn[None, :] < N)\n"
        "    acc = tl.where(acc > 0, acc, 0.0)\n"
        "    bias = tl.load(bias_ptr + rn, mask=rn < N)\n"
        "    acc += bias[None, :]\n"
        "    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=out_mask)\n")
    pieces = ind.kernel_pieces(src)
    by = {kind: [p.line for p in pieces if p.kind == kind] for kind in ind.MATMUL_KINDS + ("load", "store")}
    assert by["k-loop"] == [9] and by["dot"] == [13] and by["k-mask"] == [10] and by["edge-mask"] == [14]
    assert by["relu"] == [15] and by["epilogue-load"] == [16] and by["epilogue-add"] == [17]
    assert by["relu"][0] < by["epilogue-add"][0]  # relu before the bias: the order shows it
    assert by["tile"] == [3, 4] and by["acc"] == [8] and by["store"] == [18]
    # no loop around tl.dot: a pointwise kernel keeps its own pieces
    assert "k-loop" not in {p.kind for p in ind.kernel_pieces("@triton.jit\ndef f(x):\n    y = tl.load(x)\n")}


def test_quiz_on_the_template():
    [k] = ind.extract_kernels(TEMPLATE_CODE)
    qs = ind.quiz_questions(k)
    assert [q.id for q in qs] == ["k-loop", "dot", "k-mask", "epilogue-load", "epilogue-add", "relu", "store"]
    right = {q.id: str(q.accepted[0]) for q in qs}
    assert ind.grade_quiz(qs, right)["score"] == 7
    assert ind.grade_quiz(qs, dict(right, relu=right["epilogue-add"]))["score"] == 6


def test_what_each_compile_chose():
    assert it.gemm_outcome([TEMPLATE_CODE]) == {"templates": ["triton_tem_fused_add_relu_0"], "externs": [],
                                                "others": []}
    assert it.gemm_outcome([UNRESTRICTED_CODE]) == {"templates": [], "externs": ["addmm"],
                                                    "others": ["triton_poi_fused_relu_0"]}
    [call] = it.extern_lines([UNRESTRICTED_CODE])
    assert call.startswith("extern_kernels.addmm(arg2_1, arg0_1, arg1_1")


def test_compile_settings_from_the_spec():
    import torch._inductor

    spec = drills.get_spec("matmul-epilogue")
    opts = spec.compile_options
    assert opts.mode == "max-autotune-no-cudagraphs" and opts.options == {"max_autotune_gemm_backends": "TRITON"}
    gpu = child.compile_settings(opts, interpreted=False)
    assert gpu["options"] == {**torch._inductor.list_mode_options(opts.mode), **opts.options}
    assert gpu["options"]["max_autotune"] is True and "triton.cudagraphs" not in gpu["options"]
    assert gpu["interpreter_overrides"] == {} and gpu["ignored"] == []
    cpu = child.compile_settings(opts, interpreted=True)
    assert cpu["interpreter_overrides"] == child.INTERPRETER_OVERRIDES
    assert cpu["options"]["test_configs.max_mm_configs"] == 2 and cpu["options"]["benchmark_epilogue_fusion"] is False
    plain = child.compile_settings(CompileOptions(options={"no_such_setting": 1, "epilogue_fusion": True}), True)
    assert plain["ignored"] == ["no_such_setting"] and plain["options"] == {"epilogue_fusion": True}
    assert plain["interpreter_overrides"] == {}  # not max-autotune: nothing to cut down
    assert child.compile_settings(None, True) is None
    assert drills.get_spec("fuse").compile_options is None


def test_autotune_recorder_hooks_and_the_fusion_log():
    import torch._inductor.scheduler as scheduler
    from torch._inductor.select_algorithm import get_algorithm_selector_cache

    assert scheduler.fusion_log.name == child.FUSION_LOGGER  # the artifact logger we listen to
    rec = child.AutotuneRecorder().install()
    try:
        assert rec.feedback in get_algorithm_selector_cache().feedback_saver_fns
        logging.getLogger(child.FUSION_LOGGER).debug(
            "can fuse (benchmark): fusing %s with %s cause %sx speedup", ["buf0"], ["buf1"], "\x1b[32m1.234\x1b[0m")
        logging.getLogger(child.FUSION_LOGGER).debug("some other fusion message")

        class Template:
            name, description = "triton_mm_3", "BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, num_warps=4, num_stages=3"

        class Extern:
            name, description = "addmm", ""

        rec.feedback({Template(): 0.5}, "addmm", [])
        rec.feedback({Template(): 0.02, Extern(): 0.01, type("Broken", (), {"name": "x"})(): float("inf")},
                     "addmm", [])  # timed again: replaces the first record
    finally:
        rec.uninstall()
    assert rec.feedback not in get_algorithm_selector_cache().feedback_saver_fns
    assert rec.fusion == ["can fuse (benchmark): fusing ['buf0'] with ['buf1'] cause 1.234x speedup"]
    [op] = rec.ops
    assert [c["name"] for c in op["choices"]] == ["addmm", "triton_mm_3", "x"] and op["choices"][2]["ms"] is None


def _render(capture, kernels, lang="en") -> str:
    buf = io.StringIO()
    it.render(capture, kernels, lang, Console(file=buf, width=240, color_system=None))
    return buf.getvalue()


def test_cuda_view_of_a_comparison():
    """A capture assembled by hand in the shape the CUDA path records (the codes are the recorded CPU fixtures, the
    timings made up for this rendering test): the view names what the second compile picked."""
    kernels = ind.extract_kernels(TEMPLATE_CODE)
    compare = {"codes": [UNRESTRICTED_CODE], "compile": {"mode": "max-autotune-no-cudagraphs", "options": {
        "max_autotune": True, "coordinate_descent_tuning": True}},
        "autotune": [{"op": "addmm", "inputs": ["512", "8192x512", "512x8192"], "choices": [
            {"name": "addmm", "description": "", "kind": "ExternKernelCaller", "ms": 0.1},
            {"name": "triton_mm_7", "description": "BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_stages=3, num_warps=8",
             "kind": "TritonTemplateCaller", "ms": 0.125}]}],
        "fusion_benchmarks": ["cannot fuse (benchmark): fusing ['buf0'] with ['buf1'] cause 1.1x slowdown"],
        "first_call_s": 40.0, "second_call_s": 0.001}
    capture = {"drill": "matmul-epilogue", "device": "cuda", "path": "cuda", "codes": [TEMPLATE_CODE],
               "compile": {"mode": "max-autotune-no-cudagraphs", "options": {"max_autotune": True},
                           "interpreter_overrides": {}, "ignored": []},
               "autotune": compare["autotune"][1:], "compare": compare}
    out = _render(capture, kernels)
    assert "Inductor picked the library GEMM: extern_kernels.addmm, then triton_poi_fused_relu_0" in out
    assert "addmm" in out and "ATen (cuBLAS on a GPU)" in out and "80.0 %" in out and "← picked" in out
    assert "cannot fuse (benchmark)" in out and "interpreter" not in out and "What this CPU" not in out
    compare["codes"] = [TEMPLATE_CODE]
    assert "Inductor kept the Triton template: triton_tem_fused_add_relu_0" in _render(capture, kernels)
    assert "Inductor 选了 Triton 模板" in _render(capture, kernels, "zh")
    capture["compare"] = {"error": {"type": "OutOfMemoryError", "message": "boom"}}
    assert "The second compile failed: OutOfMemoryError: boom" in _render(capture, kernels)


def test_plain_drills_render_nothing_extra():
    assert _render({"drill": "fuse", "device": "cpu", "path": "cpu-triton-interpreter", "codes": []}, []) == ""


def test_a_failing_comparison_is_recorded_not_raised():
    def broken(x):
        raise ValueError("not this time")

    import torch
    got = child.compare_run(broken, [torch.ones(4)], {}, "cpu", CompileOptions(compare={}))
    assert got["error"]["type"] and "not this time" in got["error"]["message"]


@pytest.fixture(scope="module")
def mm_capture():
    """One real cold compile of the matmul-epilogue drill on this CPU (Triton through the interpreter if the private
    switch works): ~10 s of CPU."""
    r = ind.run_capture("matmul-epilogue", device="cpu", backend="auto", cold=True, timeout=300)
    assert not r.get("error"), r
    return r


def test_cpu_capture_end_to_end(mm_capture):
    r = mm_capture
    assert r["size"] == [127, 129, 65] and r["matches_eager"] is True
    assert r["compile"]["mode"] == "max-autotune-no-cudagraphs"
    if r["path"] != "cpu-triton-interpreter":
        pytest.skip(f"the private Triton switch did not work here: {r.get('why_no_triton')}")
    [k] = [k for code in r["codes"] for k in ind.extract_kernels(code)]
    assert k.name.startswith("triton_tem_fused_") and it.is_matmul(k) and k.lines_of("relu")
    assert r["compile"]["interpreter_overrides"] == child.INTERPRETER_OVERRIDES
    [op] = r["autotune"]
    assert op["op"] == "addmm" and len(op["choices"]) == 2
    assert all(c["kind"] == "TritonTemplateCaller" and c["ms"] > 0 for c in op["choices"])
    launches = [l for l in r["launches"] if l["kernel"] == k.name]
    c = it.constexprs(k)
    tiles = -(-c["M"] // c["BLOCK_M"]) * -(-c["N"] // c["BLOCK_N"])
    assert len(launches) == 2 and launches[0]["programs"] == tiles  # first and second call, one program per tile


def test_cli_view_beside_the_reference(mm_capture, monkeypatch, tmp_path):
    monkeypatch.setattr(ind, "run_capture", lambda *a, **kw: mm_capture)
    mine = tmp_path / "mine.py"
    mine.write_text(SOLUTION.read_text())
    r = CliRunner().invoke(cli.main, ["inductor", "matmul-epilogue", "--file", str(mine)], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    flat = " ".join(r.output.split())
    assert "your kernel (mine.py)" in flat and "epilogue-add" in flat and "max_autotune_gemm_backends" in flat
    relu_line = next(i for i, l in enumerate(SOLUTION.read_text().split("\n"), 1) if "tl.maximum(acc" in l)
    assert f"L{relu_line} acc = tl.maximum(acc, 0.0)" in flat  # the learner's own line number, in the relu row
    if mm_capture["path"] == "cpu-triton-interpreter":
        assert "What this CPU can and cannot show" in flat and "interpreter times" in flat
        zh = CliRunner().invoke(cli.main, ["inductor", "matmul-epilogue", "--lang", "zh"])
        assert "这台 CPU 能展示什么" in zh.output and zh.exit_code == 0
        qs = ind.quiz_questions(inductor_view.quiz_kernel([k for c in mm_capture["codes"]
                                                           for k in ind.extract_kernels(c)]))
        answers = ",".join(str(q.accepted[0]) for q in qs)
        q = CliRunner().invoke(cli.main, ["inductor", "matmul-epilogue", "--quiz", "--answers", answers])
        assert q.exit_code == 0 and f"score {len(qs)}/{len(qs)}" in q.output


def test_cpp_backend_shows_the_real_failure_then_the_library_gemm():
    """`--backend cpp`: Triton-only GEMMs leave Inductor's C++ backend no choice; the real error is kept and the
    drill's comparison options (Inductor's defaults) compile instead: extern addmm + a C++ relu."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(NO_TRITON_ENV, "1")
        r = ind.run_capture("matmul-epilogue", device="cpu", backend="cpp", timeout=300)
    assert not r.get("error"), r
    assert r["path"] == "cpu-cpp" and "NoValidChoicesError" in r["options_failed"]["message"]
    assert "max_autotune_gemm_backends" not in r["compile"]["options"] and r["matches_eager"] is True
    assert it.gemm_outcome(r["codes"])["externs"] == ["addmm"]
    kernels = [k for code in r["codes"] for k in ind.extract_kernels(code)]
    assert [k.name for k in kernels] == ["cpp_fused_relu_0"]
    out = " ".join(_render(r, kernels).split())
    assert "this backend failed: InductorError" in out and "Inductor's C++ backend has no Triton templates" in out
