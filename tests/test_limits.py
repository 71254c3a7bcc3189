"""grader/families/limits.py: a device's launch limits and a launch heuristic checked as a pure function (the `heuristics`
drill's GXU: at most 32 programs, 16 warps, XBLOCK a power of two in [128, 1024]). Pure functions, no kernel run."""
from __future__ import annotations

import types

import pytest

import drills
from grader.judge import diagnose
from grader.families import limits
from grader.reporting import limits_report
from grader.run import runner
from grader.reporting.i18n import DIAGNOSES, M, check_name
from grader.core import catalog
from grader.reporting.limits_report import FIX_BY_CATEGORY, _RULE_KEY

SPEC = drills.get_spec("heuristics")
GXU = SPEC.device_limits
RULES = limits.rules(SPEC)


def problems(config, n=1000):
    return SPEC.contract.check(n, config)


# -- the contract's rules -------------------------------------------------------------------------------------------

def test_a_config_within_the_limits_has_no_problem():
    assert problems({"XBLOCK": 1024, "num_warps": 16, "grid": 32}) == []
    assert problems({"XBLOCK": 128, "num_warps": 1, "grid": 1}) == []


@pytest.mark.parametrize("config,category,rule", [
    ({"XBLOCK": 129, "num_warps": 4, "grid": 8}, "xblock", "pow2"),
    ({"XBLOCK": 2048, "num_warps": 4, "grid": 8}, "xblock", "max"),
    ({"XBLOCK": 64, "num_warps": 4, "grid": 8}, "xblock", "min"),
    ({"XBLOCK": 1024, "num_warps": 32, "grid": 8}, "warps", "max"),
    ({"XBLOCK": 1024, "num_warps": 12, "grid": 8}, "warps", "pow2"),
    ({"XBLOCK": 1024, "num_warps": 4.0, "grid": 8}, "warps", "type"),
    ({"XBLOCK": 1024, "num_warps": True, "grid": 8}, "warps", "type"),
    ({"XBLOCK": 1024, "num_warps": 4, "grid": 33}, "grid", "max"),
    ({"XBLOCK": 1024, "num_warps": 4, "grid": 0}, "grid", "min"),
    ({"XBLOCK": 1024, "num_warps": 4, "grid": 24}, None, None),   # the grid need not be a power of two
    ({"XBLOCK": 1024, "num_warps": 4}, "grid", "missing"),
])
def test_each_broken_limit_is_named(config, category, rule):
    got = problems(config)
    if category is None:
        assert got == []
    else:
        assert [(p["category"], p["rule"]) for p in got] == [(category, rule)]


def test_a_result_that_is_not_a_dict_is_one_problem():
    assert problems((1024, 4, 32)) == [{"category": "error", "rule": "returned", "got": "tuple"}]


def test_numpy_style_integers_count_as_ints():
    import numpy as np
    assert problems({"XBLOCK": np.int64(1024), "num_warps": np.int32(4), "grid": 32}) == []


def test_contract_sizes_reach_a_billion_and_the_grid_transitions():
    sizes = SPEC.contract.inputs
    assert min(sizes) == 1 and max(sizes) == 10**9
    for block in (128, 256, 512, 1024):
        assert 32 * block in sizes and 32 * block + 1 in sizes
    assert list(sizes) == sorted(set(sizes))
    assert max(SPEC.sizes) <= 100_000  # interpreter sizes stay small; the billion is a pure call


# -- calling the contract (child side, no kernel) ---------------------------------------------------------------

def module(**functions):
    m = types.ModuleType("learner_submission")
    for name, fn in functions.items():
        fn.__module__ = m.__name__
        setattr(m, name, fn)
    return m


def test_contract_calls_report_the_smallest_failing_size_per_category(tmp_path):
    src = tmp_path / "sub.py"
    src.write_text("def pick_config(numel):\n"
                   "    grid = -(-numel // (1024 * 1024))\n"
                   "    return {'XBLOCK': 1024, 'num_warps': 4, 'grid': grid}\n")

    def pick_config(numel):
        return {"XBLOCK": 1024, "num_warps": 4, "grid": -(-numel // (1024 * 1024))}

    evs, summary = limits.contract_calls(SPEC, module(pick_config=pick_config), str(src))
    assert [e["category"] for e in evs] == ["grid"]
    ev = evs[0]
    assert ev["size"] == 32 * 1024 * 1024 + 1  # grid 33: the first size past the cap
    assert ev["probe"] == "pick_config" and ev["launches"] == []
    assert ev["detail"]["line"] == 2 and ev["detail"]["value"] == 33
    assert ev["detail"]["failing_inputs"] == summary["failing"]["grid"] > 1
    assert summary["inputs"] == len(SPEC.contract.inputs) and summary["largest"] == 10**9


def test_contract_calls_pass_a_correct_heuristic(tmp_path):
    import importlib.util
    spec = importlib.util.spec_from_file_location("ref", SPEC.solution_path)
    # The solution imports torch and triton; only pick_config is called.
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    evs, summary = limits.contract_calls(SPEC, mod, str(SPEC.solution_path))
    assert evs == [] and summary["failing"] == {}


def test_contract_calls_turn_an_exception_into_an_error_with_its_line(tmp_path):
    src = tmp_path / "sub.py"
    src.write_text("def pick_config(numel):\n    if numel > 10**6:\n        raise ValueError('too big')\n"
                   "    return {'XBLOCK': 1024, 'num_warps': 4, 'grid': 1}\n")
    code = compile(src.read_text(), str(src), "exec")
    scope: dict = {}
    exec(code, scope)
    evs, _ = limits.contract_calls(SPEC, module(pick_config=scope["pick_config"]), str(src))
    assert [e["category"] for e in evs] == ["error"]
    assert evs[0]["detail"]["exception"]["line"] == 3
    assert evs[0]["size"] == min(n for n in SPEC.contract.inputs if n > 10**6)  # the first one that raises
    what, fix = message("error", evs[0]["detail"], "en")
    assert "pick_config(1048575) raised ValueError: too big" in what and "10^9" in fix


def test_a_missing_heuristic_is_an_error_naming_what_was_found(tmp_path):
    def helper():
        return None
    evs, _ = limits.contract_calls(SPEC, module(helper=helper), str(tmp_path / "none.py"))
    assert evs[0]["category"] == "error" and evs[0]["detail"]["rule"] == "missing-function"
    assert "helper" in evs[0]["detail"]["found"]


# -- the line that sets a key ------------------------------------------------------------------------------------

@pytest.mark.parametrize("source,key,line", [
    ("def f(n):\n    b = 128\n    w = 4\n    return {'XBLOCK': b, 'num_warps': w, 'grid': 1}\n", "num_warps", 3),
    ("def f(n):\n    return {'XBLOCK': 128,\n            'grid': min(32, n)}\n", "grid", 3),
    ("def f(n):\n    return dict(XBLOCK=128,\n                grid=1)\n", "grid", 3),
    ("def f(n):\n    c = {}\n    c['grid'] = 1\n    return c\n", "grid", 3),
    ("def f(n):\n    g = 1\n    if n > 5:\n        g = 2\n    return {'grid': g}\n", "grid", 4),
    ("def f(n):\n    return make(n)\n", "grid", 1),                       # not found in the function: its def
    ("def g(n):\n    return {}\n", "grid", None),                          # no such function
    ("def f(:\n", "grid", None),                                           # not Python
])
def test_field_line(source, key, line):
    assert limits.field_line(source, "f", key) == line


def test_loop_line_is_the_first_loop_in_the_launched_kernel():
    lines = ["@triton.jit", "def k(x, n, XBLOCK: tl.constexpr):", "    pid = tl.program_id(0)",
             "    while pid < n:", "        pid += 1", "", "def wrapper(x):", "    for i in range(3):", "        pass"]
    assert runner.loop_line(lines, [{"kernel": "k"}]) == 4
    assert runner.loop_line(lines, [{"kernel": "other"}]) is None


# -- launches the device refuses (diagnose) -----------------------------------------------------------------------

def call(launch: dict, numel=100000, **extra) -> dict:
    base = {"kernel": "k", "programs": 32, "block": 1024, "num_warps": 4, "line": 41, "grid": [32]}
    return {"size": numel, "numel": numel, "returned": "tensor", "launches": [{**base, **launch}], **extra}


def test_a_launch_within_the_limits_is_not_refused():
    assert limits.refused_launch(call({}), RULES) is None
    assert limits.refused_launch(call({"num_warps": None}), RULES) is None  # Triton's default: 4 warps


@pytest.mark.parametrize("launch,category,too_many", [
    ({"programs": 98, "grid": [98]}, "grid", ["programs"]),
    ({"num_warps": 32}, "grid", ["num_warps"]),
    ({"programs": 98, "num_warps": 32}, "grid", ["programs", "num_warps"]),
    ({"block": 2048}, "xblock", None),
    ({"block": 96}, "xblock", None),
])
def test_the_device_refuses(launch, category, too_many):
    cat, d = limits.refused_launch(call(launch), RULES)
    assert cat == category and d["refused"] and d["device"] == "GXU" and d["line"] == 41
    if too_many:
        assert d["too_many"] == too_many
    assert diagnose.classify(call(launch), None, RULES) == (cat, d)


def test_classify_refuses_before_looking_at_values():
    ev = call({"programs": 98}, wrong=5, unwritten=0)
    assert diagnose.classify(ev, None, RULES)[0] == "grid"
    assert diagnose.classify(ev, None, {})[0] == "wrong-values"  # no device limits: the ordinary path


def test_a_launch_that_is_not_what_the_heuristic_picked():
    ev = call({"block": 1024, "programs": 1}, numel=1000,
              expected_launch={"config": {"XBLOCK": 128, "num_warps": 4, "grid": 8}})
    cat, d = limits.refused_launch(ev, RULES)
    assert cat == "xblock" and d["mismatch"] and d["launched"] == 1024 and d["picked"] == 128
    ev["launches"][0]["block"] = 128
    cat, d = limits.refused_launch(ev, RULES)
    assert cat == "grid" and d["field"] == "grid" and d["launched"] == 1 and d["picked"] == 8


def test_a_heuristic_broken_at_the_graded_size_explains_the_call():
    p = {"category": "grid", "field": "grid", "rule": "min", "value": 0, "min": 1, "max": 32}
    ev = call({"programs": 0}, numel=1, expected_launch={"problems": [p]})
    cat, d = limits.refused_launch(ev, RULES)
    assert cat == "grid" and d["rule"] == "min" and d["at_graded_size"]


def test_heuristic_categories_decide_before_the_kernel_error_they_cause():
    assert diagnose.overall(["error", "error", "xblock"]) == "xblock"
    assert diagnose.overall(["grid", "grid", "warps"]) == "warps"
    assert diagnose.overall(["error", "grid"]) == "error"
    for c in ("xblock", "warps"):
        assert c in diagnose.CATEGORIES


# -- messages -------------------------------------------------------------------------------------------------------

class V:
    def __init__(self, diagnosis, detail, **kw):
        self.drill, self.diagnosis, self.detail = "heuristics", diagnosis, detail
        self.line, self.focus, self.source_lines = kw.get("line"), kw.get("focus"), kw.get("source_lines", [])


def message(diagnosis, detail, lang):
    from grader.reporting.report import explain
    return explain(V(diagnosis, detail), lang)


def test_refusal_message_names_the_counts_the_fix_and_the_lines():
    _, d = limits.refused_launch(call({"programs": 98, "num_warps": 32}), RULES)
    d["config_lines"] = {"grid": 20, "num_warps": 19}
    what, fix = message("grid", d, "en")
    assert "the GXU refuses" in what and "98 programs" in what and "32 warps" in what and "line 41" in what
    assert "at most 32 programs" in what and "16 warps" in what
    assert "line 20" in fix and "line 19" in fix and "min(32" in fix
    what_zh, fix_zh = message("grid", d, "zh")
    assert "拒绝" in what_zh and "98" in what_zh and "第 20 行" in fix_zh


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_contract_messages_name_the_size_the_value_and_the_line(lang):
    d = {"category": "warps", "field": "num_warps", "rule": "max", "value": 32, "min": 1, "max": 16,
         "contract": "pick_config", "input": 32769, "line": 17, "failing_inputs": 40, "returned": "{...}"}
    what, fix = message("warps", d, lang)
    assert "pick_config(32769)" in what and "32" in what and "17" in what and "16" in what and "40" in what
    assert "MAX_WARPS" in fix and "?" not in what + fix


def test_every_limits_message_is_in_the_catalog():
    """Both languages of every entry: tests/test_catalog.py. Here: the keys limits_report asks for are there."""
    for key in [*_RULE_KEY.values(), "device-refuses", "device-refuses-block", "launch-mismatch", "xblock", "warps"]:
        assert "what" in DIAGNOSES[key], key
    assert set(FIX_BY_CATEGORY) == {"xblock", "warps", "grid"}
    for key in ("limits_line", "limits_failing_note", "limits_timing_title", "limits_timing_row",
                "limits_timing_skipped", "limits_lesson", "limits_cpu_note"):
        assert key in M and catalog.entry(f"messages.{key}")
    assert check_name(limits.CHECK_NAME, "zh") != limits.CHECK_NAME


def test_the_verdict_points_at_the_loop_of_a_capped_kernel_and_a_refusal_at_its_own_line():
    lines = ["def k(x):", "    for t in range(3):", "        pass"]
    assert runner.loop_line(lines, [{"kernel": "k"}]) == 2
    assert runner.line_of({"category": "grid", "detail": {"refused": True, "line": 9},
                           "launches": [{"line": 41}]}, SPEC) == 9


# -- the verdict ------------------------------------------------------------------------------------------------

def test_annotate_adds_the_check_row_and_the_json_block():
    class Run:
        result = {"contract": {"function": "pick_config", "inputs": 98, "smallest": 1, "largest": 10**9,
                               "failing": {}}}

    v = types.SimpleNamespace(drill="heuristics", checks=[])
    ok = [{"size": 1000, "category": None, "detail": {}, "launches": [{}]}]
    limits.annotate(v, ok, [Run()], SPEC)
    assert v.checks[-1]["name"] == limits.CHECK_NAME and v.checks[-1]["passed"]
    assert v.device_limits["device"] == "GXU" and v.device_limits["contract"]["inputs"] == 98
    v.checks = []
    bad = ok + [{"size": 10**9, "category": "grid", "detail": {"contract": "pick_config"}, "launches": []}]
    limits.annotate(v, bad, [Run()], SPEC)
    assert not v.checks[-1]["passed"] and "1000000000" in v.checks[-1]["detail"]


def test_cuda_timing_never_raises_without_a_gpu():
    import torch
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")

    def entry(x):
        raise AssertionError("not reached: the inputs cannot move to CUDA")
    out = limits.cuda_timing(SPEC, entry, "/nonexistent.py", say=lambda msg: None)
    assert "skipped" in out


def test_drills_without_limits_are_untouched():
    spec = drills.get_spec("vector-add")
    assert limits.rules(spec) == {}
    assert limits.refused_launch(call({"programs": 10**6}), limits.rules(spec)) is None
    evs, summary = limits.contract_calls(spec, module(), "x.py")
    assert evs == [] and summary is None


def test_a_refused_launch_is_named_before_the_heuristic_that_caused_it():
    p = {"category": "grid", "field": "grid", "rule": "max", "value": 98, "min": 1, "max": 32}
    ev = call({"programs": 98}, expected_launch={"problems": [p], "lines": {"grid": 18}})
    cat, d = limits.refused_launch(ev, RULES)
    assert cat == "grid" and d["refused"] and d["config_lines"] == {"grid": 18}
    what, _ = message(cat, d, "zh")
    assert "GXU 拒绝" in what and "98" in what
