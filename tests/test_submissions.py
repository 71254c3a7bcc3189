"""The grader graded: known-wrong submissions fail with their named category, correct variants pass.

Each file in tests/submissions/*/ says `# drill: NAME` and `# expect: CATEGORY|pass` on its first lines; a blind
tester's file may add `# also-ok: CATEGORY` where two categories name the same mistake. Every reference solution
passes, and every untouched skeleton fails with `hole`.
"""
import re
from pathlib import Path

import pytest

import drills
from grader.run import runner

HERE = Path(__file__).parent / "submissions"
EXPECT = re.compile(r"^#\s*expect:\s*(\S+)", re.MULTILINE)
ALSO_OK = re.compile(r"^#\s*also-ok:\s*(.+)$", re.MULTILINE)
SAYS = re.compile(r"^#\s*says:\s*(.+?)\s*$", re.MULTILINE)
NOT_SAYS = re.compile(r"^#\s*not-says:\s*(.+?)\s*$", re.MULTILINE)


def also_ok(path) -> set:
    m = ALSO_OK.search(path.read_text(encoding="utf-8"))
    return {c.strip() for c in m.group(1).split(",")} if m else set()


def submissions():
    for path in sorted(HERE.glob("*/*.py")):
        m = EXPECT.search(path.read_text(encoding="utf-8"))
        assert m, f"{path} lacks an `# expect:` line"
        yield pytest.param(path, m.group(1), id=f"{path.parent.name}/{path.stem}")


def grade_args(path, expected) -> dict:
    return {"device": "cpu", "timeout": 5 if expected == "timeout" else None}  # a hang is a hang: 5 s shows it


def shipped_grades(tmp_path_factory):
    """Every grade of this module, queued when the session starts (tests/conftest.py); each test waits for its own
    verdict."""
    return [(p.values[0], grade_args(*p.values)) for p in submissions()] + \
        [(drills.get_spec(n).solution_path, {"drill": n, "device": "cpu"}) for n in drills.names()]


@pytest.mark.slow
@pytest.mark.parametrize("path,expected", list(submissions()))
def test_submission_gets_its_category(path, expected, verdict_of):
    v = verdict_of(path, **grade_args(path, expected))
    got = "pass" if v.passed else v.diagnosis
    assert got == expected or got in also_ok(path), f"{path.name}: expected {expected}, got {got} ({v.detail})"
    if expected != "pass":
        assert not v.passed
        assert v.checks and any(not c["passed"] for c in v.checks)
    # `# says: words` lines: the English report must contain them; `# not-says:` must not (a borrowed fix, a figure
    # that describes something else).
    text = path.read_text(encoding="utf-8")
    report = rendered(v)
    for words in SAYS.findall(text):
        assert words in report, f"{path.name}: the report lacks {words!r}:\n{report}"
    for words in NOT_SAYS.findall(text):
        assert words not in report, f"{path.name}: the report says {words!r}:\n{report}"


def rendered(v) -> str:
    """The English report as a learner sees it, on one line (rich wraps at the console's width)."""
    import io

    from rich.console import Console

    from grader.reporting.report import print_verdict

    buf = io.StringIO()
    print_verdict(v, "en", Console(file=buf, width=10000, color_system=None))
    return " ".join(buf.getvalue().split())


@pytest.mark.slow
@pytest.mark.parametrize("name", drills.names())
def test_reference_solution_passes(name, verdict_of):
    spec = drills.get_spec(name)
    v = verdict_of(spec.solution_path, drill=name, device="cpu")
    assert v.passed, (name, v.diagnosis, v.detail)
    assert v.elapsed_s < 60


@pytest.mark.parametrize("name", drills.names())
def test_untouched_skeleton_names_its_holes(name):
    spec = drills.get_spec(name)
    v = runner.grade(spec.skeleton_path, device="cpu")
    assert v.diagnosis == "hole"
    assert not v.passed
    assert {h["name"] for h in v.detail["holes"]} == set(spec.holes)
    assert v.hole in spec.holes and v.line


def test_skeleton_header_names_its_drill():
    for name in drills.names():
        first = drills.get_spec(name).skeleton_path.read_text(encoding="utf-8").splitlines()[0]
        assert first == f"# drill: {name}"
