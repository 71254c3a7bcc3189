"""Whose fault (issue 17, item 2): drill's own exceptions are an internal error, never the learner's; CPU limitations
are 'not checked on CPU'; an impossible allocation is the learner's error at once, with its line."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from grader.core import faults
from grader.run import runner

ROOT = Path(__file__).resolve().parent.parent

KERNEL = '''
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def add(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    {alloc}
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out
'''


def raise_in(filename: str, exc: BaseException):
    code = compile("def f(e):\n    raise e\n", filename, "exec")
    ns: dict = {}
    exec(code, ns)
    try:
        ns["f"](exc)
    except BaseException as e:  # noqa: BLE001
        return e


def test_an_exception_raised_in_drills_code_is_drills():
    e = raise_in(str(ROOT / "grader" / "watch" / "lanes.py"), AttributeError("'NoneType' has no attribute 'data'"))
    fault = faults.drill_fault(e, "/tmp/learner.py")
    assert fault and fault["type"] == "AttributeError" and fault["where"].startswith("grader/watch/lanes.py")


def test_an_exception_raised_in_the_learners_file_or_a_library_is_the_learners():
    assert faults.drill_fault(raise_in("/tmp/learner.py", ValueError("bad")), "/tmp/learner.py") is None
    assert faults.drill_fault(raise_in("/x/site-packages/triton/language/core.py", ValueError("shape")),
                              "/tmp/learner.py") is None


def test_drill_raising_on_purpose_about_the_kernel_is_the_learners():
    e = raise_in(str(ROOT / "grader" / "watch" / "launches.py"), type("X", (Exception,), {"learner_facing": True})())
    assert faults.drill_fault(e, "/tmp/learner.py") is None


def test_the_interpreter_inside_the_compile_check_is_drills_not_a_compiler_rejection():
    from grader.watch.compile_check import front_end_fault

    class InterpreterError(Exception):
        pass

    class CompilationError(Exception):
        pass

    try:
        try:
            raise InterpreterError("AttributeError(\"'InterpreterBuilder' object has no attribute 'grid_idx'\")")
        except InterpreterError as inner:
            raise CompilationError("at 3:10:") from inner
    except CompilationError as e:
        fault = front_end_fault(e, "/tmp/learner.py")
    assert fault and fault["stage"] == "compile check" and "grid_idx" in fault["message"]


def test_a_not_implemented_error_of_the_interpreter_is_a_cpu_limitation():
    e = raise_in("/x/site-packages/triton/runtime/interpreter.py",
                 NotImplementedError("inline_asm not supported in interpreter mode"))
    assert "inline_asm" in faults.cpu_limitation(e)
    assert faults.cpu_limitation(raise_in("/tmp/learner.py", NotImplementedError("mine"))) is None


@pytest.mark.slow
def test_drill_failing_inside_a_grade_is_not_graded_exit_2(tmp_path):
    """A submission that breaks drill's own machinery (here: it replaces the grader's evaluate_output) gets
    'internal': no FAIL, exit code 2, the internal block in --json, in English and Chinese."""
    f = tmp_path / "sabotage.py"
    f.write_text("# drill: vector-add\nimport grader.judge.evaluate as _ev\n_ev.evaluate_output = None\n"
                 + KERNEL.format(alloc="pass"))
    v = runner.grade(f, device="cpu")
    assert v.diagnosis == "internal" and not v.passed and not v.graded
    assert v.internal["type"] == "TypeError" and v.internal["where"].startswith("grader/run/child.py")
    from rich.console import Console

    from grader.reporting.report import render
    for lang, words, fail in (("en", "drill could not grade this", "FAIL"), ("zh", "drill 无法评测", "未通过")):
        console = Console(record=True, width=200)
        console.print(render(v, lang))
        text = console.export_text()
        assert words in text and fail not in text, text
    r = subprocess.run([sys.executable, "cli.py", "grade", str(f), "--json"], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    out = json.loads(r.stdout)
    assert r.returncode == 2 and out["diagnosis"] == "internal" and out["graded"] is False and out["internal"]


@pytest.mark.slow
def test_an_impossible_allocation_fails_at_once_naming_its_line(tmp_path):
    f = tmp_path / "huge.py"
    f.write_text("# drill: vector-add\n" + KERNEL.format(alloc="scratch = torch.empty(10**13, device=x.device)"))
    v = runner.grade(f, device="cpu")
    assert v.diagnosis == "error" and v.detail["exception"]["type"] == "ImpossibleAllocation"
    assert "40.0 TB" in v.detail["exception"]["message"]
    assert v.source_lines[v.line - 1].strip().startswith("scratch = torch.empty(10**13")
    assert v.elapsed_s < 30
