"""The 2-D, reduction, persistent and autotune drills: known-wrong submissions get their category, correct
variants and reference solutions pass, skeletons name their holes; and the classify rules behind them."""
import re
from pathlib import Path

import pytest

import drills
from grader.run import runner
from grader.judge.diagnose import classify

HERE = Path(__file__).parent / "submissions"
DRILLS = ("transpose", "row-sum", "softmax", "rmsnorm", "persistent", "autotune")
HEADER = re.compile(r"^#\s*drill:\s*(\S+)\s*\n#\s*expect:\s*(\S+)", re.MULTILINE)


def submissions():
    for path in sorted(HERE.glob("*/*.py")):
        m = HEADER.search(path.read_text(encoding="utf-8"))
        if m and m.group(1) in DRILLS:
            yield pytest.param(path, m.group(2), id=f"{path.parent.name}/{path.stem}")


# tests/test_submissions.py grades every file in tests/submissions; here: that the 2-D categories are covered.


def test_every_new_category_has_a_known_wrong_submission():
    expected = {e for _, e in (p.values for p in submissions())}
    assert {"indexing", "reduction", "stability", "other", "persistent", "autotune", "grid"} <= expected
    assert "pass" in expected


def shipped_grades(tmp_path_factory):
    """Queued when the session starts (tests/conftest.py)."""
    return [(drills.get_spec(n).solution_path, {"drill": n, "device": "cpu"}) for n in DRILLS]


@pytest.mark.slow
@pytest.mark.parametrize("name", DRILLS)
def test_reference_solution_passes_within_budget(name, verdict_of):
    spec = drills.get_spec(name)
    v = verdict_of(spec.solution_path, drill=name, device="cpu")
    assert v.passed, (name, v.diagnosis, v.detail)
    assert v.elapsed_s < 20  # ~3-5 s on an idle 2-core machine; generous for a loaded CI box


@pytest.mark.parametrize("name", DRILLS)
def test_skeleton_names_its_holes(name):
    spec = drills.get_spec(name)
    v = runner.grade(spec.skeleton_path, device="cpu")
    assert v.diagnosis == "hole"
    assert {h["name"] for h in v.detail["holes"]} == set(spec.holes)


def test_shapes_are_not_multiples_or_square():
    t = drills.get_spec("transpose")
    assert any(m != n and (m * n) % 1024 for m, n in t.sizes)
    assert (1, 123) in t.sizes and (123, 1) in t.sizes
    r = drills.get_spec("row-sum")
    assert any(n > 128 and n % 128 for _, n in r.sizes) and any(m % 8 for m, _ in r.sizes)


# -- classify rules -------------------------------------------------------------------------------------------
def _ev(**kw):
    ev = {"returned": "tensor", "launches": [{"kernel": "k", "programs": 4, "block": 1024, "meta": {"n": 4000}}],
          "numel": 4000, "wrong": 0, "unwritten": 0, "duplicates": 0, "tiles": {"block": 1024, "status": "oooo"}}
    ev.update(kw)
    return ev


def test_plain_values_failure_uses_the_drills_value_category():
    assert classify(_ev(wrong=5), None, {"value_category": "indexing"})[0] == "indexing"
    assert classify(_ev(wrong=5))[0] == "wrong-values"


def test_values_failure_on_a_probe_blames_the_probe():
    ev = _ev(wrong=5, probe="x30", probe_category="stability")
    cat, detail = classify(ev, None, {"value_category": "wrong-values"})
    assert cat == "stability" and detail["probe"] == "x30"
    assert classify(_ev(probe="x30", probe_category="stability"), None, {})[0] is None  # passing probe passes


def test_programs_over_the_cap_is_persistent():
    ev = _ev(launches=[{"kernel": "k", "programs": 98, "block": 1024, "meta": {}}], numel=100000)
    cat, detail = classify(ev, None, {"max_programs": 16})
    assert cat == "persistent" and detail["programs"] == 98 and detail["tiles"] == 98
    assert classify(_ev(), None, {"max_programs": 16})[0] is None


def test_duplicate_stores_with_right_values_fail_under_a_cap_and_without_one():
    assert classify(_ev(duplicates=1024), None, {"max_programs": 16})[0] == "persistent"
    # no cap: tiles that overlap are the offsets (a grid far larger than the tiles would be `grid`)
    assert classify(_ev(duplicates=1024), None, {})[0] == "offsets"


def test_memory_errors_come_before_the_cap():
    v = {"side": "after", "program": 0, "kind": "load", "tensor": "x", "lanes": 3, "first_elem": 100000, "numel": 100000}
    ev = _ev(violations=[v], launches=[{"kernel": "k", "programs": 98, "block": 1024}])
    assert classify(ev, None, {"max_programs": 16})[0] == "mask"


def test_autotune_rules():
    ok = {"problem": None, "keys": ["n"], "labels": [], "configs": 2}
    assert classify(_ev(), None, {"autotune": ok})[0] is None
    assert classify(_ev(), None, {"autotune": {**ok, "problem": "same-warps"}})[0] == "autotune"
    cat, d = classify(_ev(), None, {"autotune": {**ok, "keys": ["x_ptr"]}})
    assert cat == "autotune" and d["problem"] == "key-not-size"
    # a grid that ignores the chosen BLOCK is a grid mistake first
    short = _ev(unwritten=3000, tiles={"block": 256, "status": "o..."},
                launches=[{"kernel": "k", "programs": 4, "block": 256, "meta": {"n": 4000}}])
    assert classify(short, None, {"autotune": ok})[0] == "grid"


def test_autotune_evidence_reads_configs_and_keys():
    triton = pytest.importorskip("triton")
    from grader.watch.launches import autotune_evidence

    class Tuner:
        def __init__(self, configs, keys):
            self.configs, self.keys = configs, keys

    two = [triton.Config({"BLOCK_SIZE": 256}, num_warps=2), triton.Config({"BLOCK_SIZE": 1024}, num_warps=4)]
    assert autotune_evidence([Tuner(two, ["n"])], 2)["problem"] is None
    assert autotune_evidence([], 2)["problem"] == "none"
    assert autotune_evidence([Tuner(two[:1], ["n"])], 2)["problem"] == "few-configs"
    same_block = [triton.Config({"BLOCK_SIZE": 256}, num_warps=w) for w in (2, 4)]
    assert autotune_evidence([Tuner(same_block, ["n"])], 2)["problem"] == "same-block"
    assert autotune_evidence([Tuner(two, [])], 2)["problem"] == "no-key"
