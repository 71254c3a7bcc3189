"""`drill inductor`: capture real Inductor output on this CPU machine (Triton through the interpreter patch, and the
C++ fallback forced with DRILL_INDUCTOR_NO_TRITON), find the pieces in it, decode names, grade the quiz."""
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import cli
from coach.inductor import capture as ind
from coach.inductor import view as inductor_view
from coach.inductor.child import NO_TRITON_ENV
from coach.store import Store

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def auto_capture():
    """One real compile of the vector-add reference, default backend choice (Triton if the patch works)."""
    r = ind.run_capture("vector-add", device="cpu", backend="auto", timeout=300)
    assert not r.get("error"), r
    return r


@pytest.fixture(scope="module")
def cpp_capture():
    """One real compile with the Triton patch forced to fail: the C++ fallback."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(NO_TRITON_ENV, "1")
        r = ind.run_capture("vector-add", device="cpu", backend="auto", timeout=300)
    assert not r.get("error"), r
    return r


def _kernels(capture):
    return [k for code in capture["codes"] for k in ind.extract_kernels(code)]


def test_capture_on_cpu_gives_triton_or_a_cpp_fallback(auto_capture):
    kernels = _kernels(auto_capture)
    assert len(kernels) == 1
    k = kernels[0]
    assert auto_capture["matches_eager"] is True
    assert auto_capture["first_call_s"] > 0 and auto_capture["second_call_s"] > 0
    assert auto_capture["size"] == 100000
    if auto_capture["lang"] == "triton":  # this machine: the private patch works with torch 2.13
        assert auto_capture["path"] == "cpu-triton-interpreter"
        assert k.name == "triton_poi_fused_add_0" and k.lang == "triton"
        launches = [l for l in auto_capture["launches"] if l["kernel"] == k.name]
        assert len(launches) == 2  # first call and second call
        assert launches[0]["grid"][0] * launches[0]["block"] >= 100000
        assert launches[0]["grid"][0] == -(-100000 // launches[0]["block"])
    else:
        assert auto_capture["path"] == "cpu-cpp" and auto_capture["why_no_triton"]
        assert k.name.startswith("cpp_fused_add")


def test_forced_fallback_shows_the_cpp_kernel(cpp_capture):
    assert cpp_capture["lang"] == "cpp" and cpp_capture["path"] == "cpu-cpp"
    assert NO_TRITON_ENV in cpp_capture["why_no_triton"]
    [k] = _kernels(cpp_capture)
    assert k.lang == "cpp" and k.name == "cpp_fused_add_0"
    kinds = [p.kind for p in k.pieces]
    assert "loop" in kinds and "store" in kinds
    assert [p.pointer for p in k.pieces if p.kind == "load"] == ["in_ptr0", "in_ptr1"]
    assert cpp_capture["matches_eager"] is True


def test_pieces_found_in_real_triton_output(auto_capture):
    if auto_capture["lang"] != "triton":
        pytest.skip("the Triton patch did not work on this torch; the recorded fixture test covers Triton")
    [k] = _kernels(auto_capture)
    lines = k.shown.split("\n")
    [mask] = k.lines_of("mask")
    assert lines[mask - 1].strip().startswith("xmask = xindex < xnumel")
    assert "tl.program_id" in lines[k.lines_of("pid")[0] - 1]
    assert "xindex" in lines[k.lines_of("offsets")[0] - 1]
    loads = [p for p in k.pieces if p.kind == "load"]
    assert [p.pointer for p in loads] == ["in_ptr0", "in_ptr1"] and all(p.masked for p in loads)
    [store] = [p for p in k.pieces if p.kind == "store"]
    assert store.pointer == "out_ptr0" and store.masked
    assert k.aten_ops == ["add"]
    launch = inductor_view.launch_lines(auto_capture, k, "en")
    assert any(".run(" in l for l in launch) and any("XBLOCK=" in l for l in launch)


def test_pieces_found_in_recorded_relu_add_output():
    """Real Inductor output of relu(x + y) (benchmarks/inductor_capture.py on this CPU machine, torch 2.13)."""
    code = (FIXTURES / "inductor_relu_add_cpu_triton_torch213.txt").read_text()
    [k] = ind.extract_kernels(code)
    assert k.name == "triton_poi_fused_add_relu_0"
    assert sorted(k.aten_ops) == ["add", "relu"]
    assert len(k.lines_of("mask")) == 1 and len(k.lines_of("store")) == 1 and len(k.lines_of("load")) == 2
    d = ind.decode_kernel_name(k.name, k.aten_ops)
    assert d["category_en"] == "pointwise" and d["ops"] == ["add", "relu"] and d["fused"]
    assert ind.wrapper_launch_lines(code, [k.name])[0].startswith("triton_poi_fused_add_relu_0.run(")


@pytest.mark.parametrize("name,aten,backend,cat,ops,index", [
    ("triton_poi_fused_add_relu_0", None, "triton", "poi", ["add", "relu"], 0),
    ("triton_per_fused__softmax_0", None, "triton", "per", ["_softmax"], 0),
    ("triton_red_fused_add_mean_mul_pow_rsqrt_1", None, "triton", "red", ["add", "mean", "mul", "pow", "rsqrt"], 1),
    ("triton_per_fused_native_layer_norm_2", ["native_layer_norm"], "triton", "per", ["native_layer_norm"], 2),
    ("cpp_fused_add_relu_0", None, "cpp", None, ["add", "relu"], 0),
])
def test_kernel_name_decoder(name, aten, backend, cat, ops, index):
    d = ind.decode_kernel_name(name, aten)
    assert (d["backend"], d["category"], d["ops"], d["index"], d["fused"]) == (backend, cat, ops, index, True)


def test_decoder_without_aten_list_splits_multiword_ops_apart():
    assert ind.decode_kernel_name("triton_per_fused_native_layer_norm_0")["ops"] == ["native", "layer", "norm"]


def test_pick_size():
    assert ind.pick_size((1, 1023, 1024, 100000, 2**24)) == 100000
    assert ind.pick_size((1, 4096)) == 4096
    assert ind.pick_size(((4, 7), (128, 1024), (256, 1024))) == (128, 1024)


def test_learner_kernel_is_read_not_run(tmp_path):
    f = tmp_path / "mine.py"
    f.write_text("raise SystemExit('never run')\nimport triton\nimport triton.language as tl\n\n"
                 "@triton.jit\ndef k(x_ptr, o_ptr, n, B: tl.constexpr):\n    pid = tl.program_id(0)\n"
                 "    offs = pid * B + tl.arange(0, B)\n    v = tl.load(x_ptr + offs)\n    tl.store(o_ptr + offs, v)\n")
    text, name, first = ind.learner_kernel_source(f.read_text())
    assert name == "k" and first == 5
    pieces = ind.triton_pieces(text)
    assert [p.kind for p in pieces] == ["pid", "offsets", "load", "store"]
    assert [p.masked for p in pieces if p.kind in ("load", "store")] == [False, False]
    rows = ind.line_up(ind.triton_pieces("    m = o < n\n    a = tl.load(p + o, mask=m)\n"), pieces)
    mask_row = next(r for r in rows if r["kind"] == "mask")
    assert mask_row["inductor"] and not mask_row["mine"]


def test_quiz_grades_right_and_wrong_and_records(auto_capture):
    k = inductor_view.quiz_kernel(_kernels(auto_capture))
    qs = ind.quiz_questions(k)
    assert [q.id for q in qs][0] == "mask" and qs[-1].id == "store"
    assert sum(q.id.startswith("load:") for q in qs) == 2
    right = {q.id: f"line {q.accepted[0]}" for q in qs}
    assert ind.grade_quiz(qs, right)["score"] == len(qs)
    wrong = {q.id: str(q.accepted[0] + 1) for q in qs}
    graded = ind.grade_quiz(qs, wrong)
    assert graded["score"] == 0 and not any(i["correct"] for i in graded["items"])
    assert ind.grade_quiz(qs, {})["score"] == 0
    store = Store()
    ind.record_quiz(store, "vector-add", k.name, graded)
    entry = ind.record_quiz(store, "vector-add", k.name, ind.grade_quiz(qs, right))
    assert entry["attempts"] == 2 and entry["best"] == len(qs) and entry["last"]["wrong"] == []
    assert store.read()["quiz"]["inductor"]["vector-add"]["attempts"] == 2


def test_cli_quiz_with_answers(auto_capture, monkeypatch):
    monkeypatch.setattr(ind, "run_capture", lambda *a, **kw: auto_capture)
    qs = ind.quiz_questions(inductor_view.quiz_kernel(_kernels(auto_capture)))
    good = ",".join(str(q.accepted[0]) for q in qs)
    r = CliRunner().invoke(cli.main, ["inductor", "vector-add", "--quiz", "--answers", good])
    assert r.exit_code == 0, r.output
    assert f"score {len(qs)}/{len(qs)}" in r.output
    r = CliRunner().invoke(cli.main, ["inductor", "vector-add", "--quiz", "--answers", "1,1,1,1", "--lang", "zh"])
    assert r.exit_code == 1 and "得分 0/" in r.output
    r = CliRunner().invoke(cli.main, ["inductor", "vector-add", "--quiz"], input="\n".join(good.split(",")) + "\n")
    assert r.exit_code == 0, r.output
    assert Store().read()["quiz"]["inductor"]["vector-add"]["attempts"] == 3


def test_cli_view_side_by_side_and_timings(auto_capture, monkeypatch, tmp_path):
    monkeypatch.setattr(ind, "run_capture", lambda *a, **kw: auto_capture)
    mine = tmp_path / "mine.py"
    mine.write_text((Path(cli.__file__).parent / "solutions" / "vector_add.py").read_text())
    r = CliRunner().invoke(cli.main, ["inductor", "vector-add", "--file", str(mine)])
    assert r.exit_code == 0, r.output
    assert "your kernel (mine.py)" in r.output and "first call" in r.output and "second call" in r.output
    mask_line = next(i for i, l in enumerate(mine.read_text().split("\n"), 1) if l.strip().startswith("mask ="))
    assert f"L{mask_line} " in r.output  # the learner's own line number, in the mask row
    r = CliRunner().invoke(cli.main, ["inductor", "vector-add", "--raw"])
    assert r.exit_code == 0 and r.output.strip().startswith(auto_capture["codes"][0].strip()[:40])


def test_cli_cpp_view_explains_why_no_triton(cpp_capture, monkeypatch):
    monkeypatch.setattr(ind, "run_capture", lambda *a, **kw: cpp_capture)
    r = CliRunner().invoke(cli.main, ["inductor", "vector-add"])
    assert r.exit_code == 0 and "Why no Triton here" in r.output and "cpp_fused_add_0" in r.output
    r = CliRunner().invoke(cli.main, ["inductor", "vector-add", "--lang", "zh"])
    assert "为什么这里没有 Triton" in r.output


def test_save_never_overwrites(auto_capture, monkeypatch, tmp_path):
    monkeypatch.setattr(ind, "run_capture", lambda *a, **kw: auto_capture)
    for _ in range(2):
        r = CliRunner().invoke(cli.main, ["inductor", "vector-add", "--save", str(tmp_path / "out")])
        assert r.exit_code == 0, r.output
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert "vector-add_output_code.py" in names and "vector-add_output_code.1.py" in names
    meta = json.loads((tmp_path / "out" / "vector-add_capture.json").read_text())
    assert meta["first_call_s"] == auto_capture["first_call_s"] and "codes" not in meta


def test_usage_and_compile_failure_exit_codes(monkeypatch, tmp_path):
    r = CliRunner().invoke(cli.main, ["inductor", "no-such-drill"])
    assert r.exit_code == 2 and "unknown drill" in r.output
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    r = CliRunner().invoke(cli.main, ["inductor", "vector-add", "--file", str(empty)])
    assert r.exit_code == 2 and "no @triton.jit" in r.output
    monkeypatch.setattr(ind, "run_capture", lambda *a, **kw: {"error": {"type": "timeout", "message": "too slow"}})
    r = CliRunner().invoke(cli.main, ["inductor", "vector-add"])
    assert r.exit_code == 1 and "too slow" in r.output and "Traceback" not in r.output


def test_enable_cpu_triton_fails_cleanly_without_the_private_hook(monkeypatch):
    import torch.utils._triton as torch_triton
    from coach.inductor import child as inductor_child

    monkeypatch.delenv(NO_TRITON_ENV, raising=False)
    monkeypatch.delattr(torch_triton, "triton_backend")
    ok, why = inductor_child.enable_cpu_triton()
    assert ok is False and "triton_backend" in why


def test_enable_then_disable_restores_torch(monkeypatch):
    import torch._inductor.config as cfg
    import torch.utils._triton as torch_triton
    from coach.inductor import child as inductor_child

    monkeypatch.delenv(NO_TRITON_ENV, raising=False)
    before = (torch_triton.triton_backend, cfg.cpu_backend)
    ok, why = inductor_child.enable_cpu_triton()
    try:
        if ok:
            assert cfg.cpu_backend == "triton" and torch_triton.triton_backend is not before[0]
        else:
            assert why
    finally:
        inductor_child.disable_cpu_triton()
    assert (torch_triton.triton_backend, cfg.cpu_backend) == before


def test_source_only_view_says_where_timings_come_from(monkeypatch):
    """Triton source generated but not runnable by the interpreter: show it, time the C++ kernel, say so."""
    code = (FIXTURES / "inductor_relu_add_cpu_triton_torch213.txt").read_text()
    capture = {"drill": "vector-add", "size": 100000, "function_name": "relu_add", "lang": "triton",
               "path": "cpu-triton-source-only", "interpreter_error": "InterpreterError: boom", "codes": [code],
               "timing_from": "cpu-cpp", "first_call_s": 2.0, "second_call_s": 0.01, "eager_call_s": 0.01,
               "launches": [], "autotuners": [], "fx_graph_cache": {"miss": 1}, "matches_eager": True}
    monkeypatch.setattr(ind, "run_capture", lambda *a, **kw: capture)
    r = CliRunner().invoke(cli.main, ["inductor", "vector-add"])
    assert r.exit_code == 0, r.output
    flat = " ".join(r.output.split())  # rich wraps at 80 columns
    assert "could not run it" in flat and "InterpreterError: boom" in flat
    assert "triton_poi_fused_add_relu_0" in flat and "C++ kernel" in flat


def test_quiz_asks_again_until_the_answer_is_a_line_number(monkeypatch):
    import io

    from rich.console import Console

    answers = iter(["the mask line", "around there", "12"])
    monkeypatch.setattr(inductor_view.click, "prompt", lambda *a, **k: next(answers))
    buf = io.StringIO()
    assert inductor_view.ask_line("Which line is the mask?", "en", Console(file=buf)) == "12"
    assert buf.getvalue().count("is not a line number") == 2
    monkeypatch.setattr(inductor_view.click, "prompt", lambda *a, **k: "")
    assert inductor_view.ask_line("Which line?", "en", Console(file=io.StringIO())) == ""  # Enter skips


def test_quiz_with_fewer_answers_says_so_and_exits_1(auto_capture, monkeypatch):
    """Issue 20: fewer piped answers than questions exited 130 in silence; `--answers 6,8` printed "None — wrong"
    and exited 0."""
    monkeypatch.setattr(ind, "run_capture", lambda *a, **kw: auto_capture)
    qs = ind.quiz_questions(inductor_view.quiz_kernel(_kernels(auto_capture)))
    first = str(qs[0].accepted[0])
    r = CliRunner().invoke(cli.main, ["inductor", "vector-add", "--quiz"], input=first + "\n")
    assert r.exit_code == 1, r.output
    assert f"input ended after 1 of {len(qs)} answers" in r.output and "(no answer)" in r.output
    r = CliRunner().invoke(cli.main, ["inductor", "vector-add", "--answers", first])  # --answers is the quiz
    assert r.exit_code == 1 and "None" not in r.output and f"gave 1 of {len(qs)} answers" in r.output
    r = CliRunner().invoke(cli.main, ["inductor", "vector-add", "--answers", ",".join(["1"] * (len(qs) + 1))])
    assert r.exit_code == 2 and "questions" in r.output


def test_quiz_answers_that_are_not_line_numbers_are_a_usage_error_before_compiling(monkeypatch):
    def never(*a, **kw):
        raise AssertionError("compiled before checking --answers")

    monkeypatch.setattr(ind, "run_capture", never)
    r = CliRunner().invoke(cli.main, ["inductor", "vector-add", "--answers", "6,x"])
    assert r.exit_code == 2 and "'x' is not a line number" in r.output
