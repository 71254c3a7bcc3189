"""`drill inductor` for a drill with device limits (coach/inductor/limits.py): the installed Inductor's source lines
are found, Inductor's launch is held against the device, and the view says where a limit would have to go."""
from __future__ import annotations

import io
from pathlib import Path

import torch._inductor
from rich.console import Console

import drills
from coach.inductor import limits as il

SPEC = drills.get_spec("heuristics")
LIMITS = {"device": "GXU", "max_programs": 32, "max_warps": 16, "min_block": 128, "max_block": 1024}


def test_every_decision_point_is_found_in_the_installed_torch():
    found = il.find_lines(Path(torch._inductor.__file__).parent)
    assert [f["where"] for f in found] == [w[1] for w in il.WHERE]
    missing = [f["where"] for f in found if f.get("missing")]
    assert not missing, f"not in this torch: {missing} (update WHERE and docs/heuristics.md)"
    by = {f["where"]: f for f in found}
    assert "ceildiv" in by["Grid1D.generate"]["text"] and "xnumel" in by["Grid1D.generate"]["text"]
    assert "2147483647" in by["triton_config"]["text"]
    # the line numbers are real: the file has that text there
    path = Path(torch._inductor.__file__).parent / "runtime" / "triton_heuristics.py"
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[by["_check_max_grid_x"]["line"] - 1].strip() == by["_check_max_grid_x"]["text"]


def test_a_missing_file_or_function_is_reported_missing(tmp_path):
    (tmp_path / "runtime").mkdir()
    (tmp_path / "runtime" / "triton_heuristics.py").write_text("def pointwise():\n    bs = 1\n")
    found = {f["where"]: f for f in il.find_lines(tmp_path)}
    assert found["Grid1D.generate"]["missing"] and found["TRITON_MAX_BLOCK"]["missing"]
    assert found["pointwise"]["missing"]  # the function is there, but `bs = 1` is not `bs = max(...)`


def test_inductor_launch_from_a_recorded_launch_or_from_the_config():
    capture = {"launches": [{"programs": 98, "block": 1024, "num_warps": None}],
               "autotuners": [{"configs": [{"XBLOCK": 1024, "num_warps": 4}], "chosen": []}]}
    assert il.inductor_launch(capture, 100000) == {"programs": 98, "block": 1024, "num_warps": 4, "from": "launch"}
    gpu = {"launches": [], "autotuners": [{"configs": [], "chosen": [{"XBLOCK": 512, "num_warps": 8}]}]}
    assert il.inductor_launch(gpu, 100000) == {"programs": 196, "block": 512, "num_warps": 8, "from": "config"}
    assert il.inductor_launch({}, 100000) is None


def test_judge_names_each_broken_limit():
    assert il.judge({"programs": 98, "block": 1024, "num_warps": 4}, LIMITS) == ["programs"]
    assert il.judge({"programs": 8, "block": 4096, "num_warps": 32}, LIMITS) == ["num_warps", "block"]
    assert il.judge({"programs": 32, "block": 1024, "num_warps": None}, LIMITS) == []


def render(lang: str) -> str:
    capture = {"torch": "2.13.0", "limits": {
        "limits": LIMITS, "numel": 100000, "launch": {"programs": 98, "block": 1024, "num_warps": 4, "from": "launch"},
        "broken": ["programs"], "configs": [{"XBLOCK": 1024, "num_warps": 4}], "configs_within": [{}],
        "where": [{"file": "torch/_inductor/runtime/triton_heuristics.py", "where": "Grid1D.generate", "line": 5271,
                   "text": 'self.x_grid = self.ceildiv("xnumel", meta.get("XBLOCK"))', "decides": "grid"},
                  {"file": "torch/_inductor/runtime/hints.py", "where": "TRITON_MAX_BLOCK", "missing": True,
                   "decides": "xblock"}]}}
    buf = io.StringIO()
    il.render(capture, lang, Console(file=buf, width=200, color_system=None))
    return buf.getvalue()


def test_view_in_english_and_chinese():
    en = render("en")
    assert "The GXU would refuse it: 98 programs > 32" in en
    assert "triton_heuristics.py:Grid1D.generate (line 5271" in en and "not found in this torch" in en
    assert "No honest patch point for the grid" in en and "register_backend_for_device('gxu'" in en
    zh = render("zh")
    assert "GXU 会拒绝这次启动" in zh and "没有可以如实修改的补丁点" in zh


def test_nothing_for_drills_without_limits():
    assert il.facts(drills.get_spec("fuse"), {}, 100000) is None
    buf = io.StringIO()
    il.render({}, "en", Console(file=buf))
    assert buf.getvalue() == ""
