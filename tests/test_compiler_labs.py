"""The compile labs (graph-breaks, custom-op): graded by what torch.compile reports (grader/families/compiled.py).

The known-wrong files in tests/submissions/ get their category from tests/test_submissions.py; here each one must
also name its hole and the learner's line, the report must quote Dynamo's own reason, and the parsers of Dynamo's
messages are held to the texts torch 2.13 writes."""
import re
from pathlib import Path

import pytest

import drills
from grader.families import compiled
from grader.reporting.report import explain, render

HERE = Path(__file__).parent / "submissions"
LAB_FILES = sorted(p for p in HERE.glob("*/*.py") if p.name.startswith(("graph_breaks_", "custom_op_")))


def hole_of(path):
    m = re.search(r"^# hole: (\S+)", path.read_text(encoding="utf-8"), re.M)
    return m.group(1) if m else None


def shipped_grades(tmp_path_factory):
    """Queued when the session starts (tests/conftest.py); test_submissions checks the same files."""
    return [(p, {}) for p in LAB_FILES if hole_of(p)] + [(HERE / "wrong" / "graph_breaks_original.py", {})] + \
        [(drills.get_spec(n).solution_path, {"drill": n}) for n in ("custom-op", "graph-breaks")]


@pytest.mark.slow
@pytest.mark.parametrize("path", [p for p in LAB_FILES if hole_of(p)], ids=lambda p: p.stem)
def test_wrong_lab_file_names_its_hole_and_line(path, verdict_of):
    v = verdict_of(path)
    assert not v.passed
    assert v.hole == hole_of(path), (v.diagnosis, v.hole, v.detail)
    assert v.line, v.detail
    what, fix = explain(v, "en")
    assert fix and "?" not in what.split(":")[0], what
    zh_what, zh_fix = explain(v, "zh")
    assert zh_what != what and zh_fix


@pytest.mark.slow
def test_graph_break_report_quotes_dynamo_next_to_the_line(verdict_of):
    v = verdict_of(HERE / "wrong" / "graph_breaks_original.py")
    assert v.diagnosis == "graph-break" and v.hole == "print"
    c = v.info["compile"]
    lines = {b["line"]: b for b in c["breaks"]}
    src = v.source_lines
    # Every break Dynamo saw is on the line that causes it, in its own words.
    causes = ("print(", ".item()", "np.interp", "torch.nonzero")
    assert {next(c for c in causes if c in src[n - 1]) for n in lines} == set(causes)
    assert any("item()" in b["reason"] for b in c["breaks"])
    assert any("numpy" in b["reason"] for b in c["breaks"])
    assert {r["category"] for r in c["recompiles"]} >= {"branch", "history"}
    from rich.console import Console
    console = Console(record=True, width=300)
    console.print(render(v, "en"))
    text = console.export_text()
    assert "What Dynamo saw" in text and "Failed to trace builtin operator" in text


@pytest.mark.slow
def test_custom_op_reference_compiles_and_is_checked_lane_by_lane(verdict_of):
    spec = drills.get_spec("custom-op")
    v = verdict_of(spec.solution_path, drill="custom-op")
    assert v.passed, (v.diagnosis, v.detail)
    c = v.info["compile"]
    assert c["op"] == {"name": "drill::add_relu", "registered": True, "triton_op": True}
    assert set(c["opcheck"].values()) == {"SUCCESS"} and len(c["opcheck"]) == 4
    assert c["fullgraph"] == {"ok": True} and c["compiles"] == 1 and not c["breaks"]
    assert c["kernels"] == ["add_relu_kernel"]
    names = {row["name"] for row in v.checks}
    assert {"memory accesses in bounds", "opcheck passes", "gradient matches"} <= names


@pytest.mark.slow
def test_graph_breaks_reference_compiles_once(verdict_of):
    v = verdict_of(drills.get_spec("graph-breaks").solution_path, drill="graph-breaks")
    assert v.passed, (v.diagnosis, v.detail)
    c = v.info["compile"]
    assert c["compiles"] == 1 and not c["recompiles"] and c["graphs"] == 1
    assert "computes in a Triton kernel" not in {row["name"] for row in v.checks}  # no kernel in this lab


# -- Dynamo's messages, as torch 2.13 writes them ------------------------------------------------------------------

RECOMPILE = """Recompiling function step in /tmp/lab/graph_breaks.py:31
    triggered by the following guard failure(s):
    - 1/0: (x.size()[0] % 8) == 0  # if x.shape[0] % 8 == 0:  # mp/lab/graph_breaks.py:33 in step (_dynamo/variables/tensor.py:2606 in evaluate_expr)"""

BREAK = """Graph break in user code at /tmp/lab/graph_breaks.py:37
Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):

Unsupported Tensor.item() call with capture_scalar_outputs=False
  Explanation: Dynamo does not support tracing `Tensor.item()` with config.capture_scalar_outputs=False.
User code traceback:
  File "/tmp/lab/graph_breaks.py", line 37, in step
    peak = h.abs().max().item()"""


def test_recompile_message_gives_guard_code_and_line():
    r = compiled.parse_recompile(RECOMPILE, "/tmp/lab/graph_breaks.py")
    assert r == {"reason": "(x.size()[0] % 8) == 0", "code": "if x.shape[0] % 8 == 0:", "line": 33}
    assert compiled.blame(r["reason"] + " " + r["code"], drills.get_spec("graph-breaks").compile_lab.blame) == "branch"


def test_break_message_gives_the_specific_reason_and_line():
    b = compiled.parse_break(BREAK, "/tmp/lab/graph_breaks.py")
    assert b["line"] == 37
    assert b["reason"] == "Unsupported Tensor.item() call with capture_scalar_outputs=False"
    assert b["explanation"].startswith("Dynamo does not support tracing `Tensor.item()`")


def test_recompiles_of_one_guard_count_once_and_blamed_first():
    rs = [{"reason": "tensor 'x' size mismatch at index 0. expected 24, actual 13", "code": "", "category": None},
          {"reason": "len(G['HISTORY']) == 3", "code": "HISTORY.append(x.shape[0])", "category": "history"},
          {"reason": "len(G['HISTORY']) == 4", "code": "HISTORY.append(x.shape[0])", "category": "history"}]
    assert [r["category"] for r in compiled.distinct(rs)] == ["history", None]


def test_problems_come_in_the_order_to_fix_them():
    lab = drills.get_spec("custom-op").compile_lab
    c = {"op": {"name": "drill::add_relu", "registered": True, "triton_op": False},
         "opcheck": {"test_schema": "SUCCESS", "test_faketensor": "no fake impl", "test_autograd_registration":
                     "Trying to backward through drill.add_relu.default but no autograd formula was registered"},
         "breaks": [{"reason": "x", "line": 3, "category": None}], "recompiles": [], "fullgraph": {"ok": False}}
    assert [p["category"] for p in compiled.problems(c, lab)] == ["fake", "graph-break", "autograd"]
    c["op"]["triton_op"] = True  # a triton_op failing under FakeTensors launched its kernel unwrapped
    assert compiled.problems(c, lab)[0]["category"] == "wrap"
    assert compiled.problems({"op": {"name": "drill::add_relu", "registered": False}}, lab)[0]["category"] == \
        "registration"


def test_allowed_recompiles_are_not_problems():
    lab = drills.get_spec("graph-breaks").compile_lab
    c = {"breaks": [], "fullgraph": {"ok": True}, "recompiles": [{"reason": "g", "category": "branch", "line": 5}]}
    assert [p["category"] for p in compiled.problems(c, lab)] == ["recompile"]
    from dataclasses import replace
    assert compiled.problems(c, replace(lab, max_recompiles=1)) == []


def test_mock_can_hand_out_the_labs(tmp_path):
    from coach.mock.interview import prepare
    tasks, _ = prepare(tmp_path, ["graph-breaks", "custom-op"], [])
    assert {p.name for p in tmp_path.iterdir()} >= {"graph_breaks.py", "custom_op.py"}
    assert len(tasks) == 2


def test_a_compiled_kernel_refuses_fake_tensors_before_it_launches():
    """On a GPU a raw launch on FakeTensors reads address 0 and kills the CUDA context (custom_op_no_wrap was
    `internal` on the H200); the guard raises the learner's UnwrappedLaunch instead, as the interpreter path does."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode, is_fake

    from grader.families.compiled_interp import WRAPPED, UnwrappedLaunch, patch_run

    class Kernel:  # stands in for JITFunction: patch_run wraps whatever class has `run`
        launched = 0

        def __init__(self):
            self.fn = lambda: None

        def run(self, *args, **kwargs):
            Kernel.launched += 1

    patch_run(Kernel, is_fake)
    kernel = Kernel()
    with FakeTensorMode():
        fake = torch.empty(8)
    with pytest.raises(UnwrappedLaunch, match="wrap_triton"):
        kernel.run(fake, 8, grid=(1,))
    assert Kernel.launched == 0
    kernel.run(torch.empty(8), 8, grid=(1,))  # real tensors launch
    setattr(kernel, WRAPPED, True)
    kernel.run(fake, 8, grid=(1,))  # marked by wrap_triton: the fake rule, no launch
    assert Kernel.launched == 1
