"""`drill why-slow`: every slow version is correct and its CPU grade shows the count that proves the cause (more
launches, programs or bytes than the reference at the size asked); the answer's cause and count are checked."""
import io
from types import SimpleNamespace

import pytest
from rich.console import Console

import drills
from coach.bughunt import slow
from conftest import session_file

SLOW = slow.all_slow()
GRADED = slow.graded_on_cpu()  # all but the one whose cause only a GPU shows (slow.NOT_GRADED_ON_CPU)


def written(tmp_path_factory) -> dict:
    """Each graded slow version written to a file of the session."""
    return {s.key: session_file(tmp_path_factory, "slow", f"{s.key.replace(':', '__')}.py", slow.text(s, slow.drill_of(s)))
            for s in GRADED}


def shipped_grades(tmp_path_factory):
    """Queued when the session starts (tests/conftest.py): the slow versions and the references they beat."""
    return [(p, {"device": "cpu"}) for p in written(tmp_path_factory).values()] + \
        [(drills.get_spec(n).solution_path, {"drill": n, "device": "cpu"}) for n in slow.drills_with_slow()]


@pytest.fixture(scope="module")
def slow_files(tmp_path_factory):
    return written(tmp_path_factory)


def test_the_timed_drills_have_slow_versions_and_each_is_well_formed():
    timed = {n for n in drills.names() if drills.get_spec(n).speedup_min is not None}
    assert set(slow.drills_with_slow()) == timed
    for s in SLOW:
        assert s.cause in slow.CAUSES and s.measure in slow.MEASURES, s.key
        assert s.explain.get("en") and s.explain.get("zh"), s.key
        assert (s.measure in (None, "launches")) == (s.at is None), s.key  # a count at a size names the size
        text = slow.text(s, slow.drill_of(s))
        assert text.startswith(f"# drill: {slow.drill_of(s)}\n") and "#" not in text.split("\n", 1)[1], s.key


@pytest.mark.parametrize("answer,parsed", [
    ("a 2", ("two-kernels", 2)), ("D) 193", ("tiny-tile", 193)), ("c: 2,000,000 bytes", ("materialised", 2e6)),
    ("wasted-programs 97", ("wasted-programs", 97)), ("b", ("no-tensor-cores", None)), ("2", (None, 2)),
])
def test_parse_the_cause_and_the_count(answer, parsed):
    assert slow.parse(answer) == parsed


def fake(launches=1, programs=None, moved=None, at=12289, timing=None):
    row = {"device": "cpu", "probe": None, "size": at, "launches": [{"programs": programs or 13}],
           "bytes": moved or {"loaded": 1, "stored": 1}}
    return SimpleNamespace(drill="fuse", launches=launches, evidence=[row], timing=timing)


def test_report_checks_the_cause_and_the_measured_count():
    s = next(x for x in slow.slow_for("fuse") if x.measure == "programs" and x.cause == "tiny-tile")
    out = io.StringIO()
    con = Console(file=out, width=200, no_color=True)
    assert slow.report(s, "tiny-tile", 193, fake(programs=193), fake(programs=13), "en", con) == 0
    assert "Right count: 193 (the grade measured 193; the reference: 13)" in out.getvalue()
    assert slow.report(s, "tiny-tile", 192, fake(programs=193), fake(programs=13), "en", con) == 1
    assert slow.report(s, "wasted-programs", 193, fake(programs=193), fake(programs=13), "en", con) == 1
    b = next(x for x in slow.slow_for("fuse") if x.measure == "bytes")
    moved = {"loaded": 12289 * 12, "stored": 12289 * 8}
    assert slow.report(b, "materialised", 12289 * 20 * 1.005, fake(moved=moved), fake(), "en", con) == 0  # 1 %
    timing = {"speedup": 0.61, "at": "n=16,777,233"}
    slow.report(s, "tiny-tile", 193, fake(programs=193, timing=timing), fake(programs=13), "en", con)
    assert "GPU (slow): 0.61x eager at n=16,777,233" in out.getvalue()


def test_a_size_the_grade_did_not_reach_is_drills_fault(capsys):
    s = next(x for x in slow.slow_for("fuse") if x.measure == "programs")
    out = io.StringIO()
    assert slow.report(s, s.cause, 1, fake(at=5), fake(at=5), "en", Console(file=out, width=200)) == 2
    assert "internal error, not your mistake" in out.getvalue()


@pytest.mark.slow
@pytest.mark.parametrize("s", GRADED, ids=[s.key for s in GRADED])
def test_slow_version_is_correct_and_its_grade_shows_the_cause(s, slow_files, verdict_of):
    drill = slow.drill_of(s)
    v = verdict_of(slow_files[s.key], device="cpu")
    values = [c for c in v.checks if c["name"].startswith("values")]
    assert values and all(c["passed"] for c in values), f"{s.key}: not correct ({v.diagnosis})"
    assert v.diagnosis in (None, "fusion", "grid"), f"{s.key}: {v.diagnosis} {v.detail}"
    ref = verdict_of(drills.get_spec(drill).solution_path, drill=drill, device="cpu")
    if s.measure is None:
        return  # an uncoalesced access moves the same bytes: correct is all the CPU can show
    got, base = slow.measured(v, s), slow.measured(ref, s)
    assert got is not None and base is not None, f"{s.key}: the grade has no {s.measure} at {s.at}"
    assert got > base, f"{s.key}: {s.measure} {got} is not above the reference's {base}"
