"""The bug catalog (drills/bugs/*.yaml): every planted mistake still applies to today's reference solution, and the
planted file fails on CPU with the bug's category; the written file gives nothing away (no comment, no docstring, no
HOLE) and differs from the reference only by the patch."""
import ast
import re

import pytest

import drills
from coach.bughunt import catalog
from conftest import session_file
from grader.families.compiled import ORDER as COMPILE_LAB_CATEGORIES
from grader.judge.diagnose import CATEGORIES

BUGS = catalog.all_bugs()
# What a verdict's diagnosis can be: the fixed vocabulary, and the compile labs' own (graph-break, recompile, wrap...).
VOCABULARY = set(CATEGORIES) | set(COMPILE_LAB_CATEGORIES)


def first_drill(bug):
    return catalog.drills_for(bug)[0]


def planted(tmp_path_factory) -> dict:
    """Each bug planted once (for the first drill that draws it), written to a file of the session."""
    return {bug.key: session_file(tmp_path_factory, "bugs", f"{bug.key.replace(':', '__')}.py",
                                  catalog.plant(bug, first_drill(bug)).text) for bug in BUGS}


def shipped_grades(tmp_path_factory):
    """Queued when the session starts (tests/conftest.py): graded in the background."""
    return [(path, {"device": "cpu"}) for path in planted(tmp_path_factory).values()]


@pytest.fixture(scope="module")
def planted_files(tmp_path_factory):
    return planted(tmp_path_factory)


# Drills whose planted-mistake catalogs are not written yet: `drill start NAME --bug` says so
# (test_start_bug_without_a_catalog_says_so). A drill added later must come with its catalog.
NO_CATALOG_YET: set = set()


def test_catalog_has_bugs_for_every_drill():
    assert {n for n in drills.names() if not catalog.bugs_for(n)} == NO_CATALOG_YET
    for name in drills.names():
        if name in NO_CATALOG_YET:
            continue
        bugs = catalog.bugs_for(name)
        assert len(bugs) >= 2, f"{name}: at least two bugs, so that none comes twice in a row"
        assert len({b.id for b in bugs}) == len(bugs), f"{name}: bug ids repeat"


@pytest.mark.parametrize("bug", BUGS, ids=[b.key for b in BUGS])
def test_bug_applies_and_gives_nothing_away(bug):
    assert bug.category in VOCABULARY, f"{bug.key}: {bug.category!r} is not a grader category"
    assert set(bug.also_ok) <= VOCABULARY, bug.key
    for key in ("en", "zh"):
        assert bug.explain.get(key) and bug.fix.get(key) and bug.part.get(key), f"{bug.key}: {key} text missing"
    assert bug.rubric and all(item.get("match") for item in bug.rubric), f"{bug.key}: the fix sentence has no rubric"
    for drill in catalog.drills_for(bug):
        p = catalog.plant(bug, drill)
        lines = p.text.splitlines()
        assert lines[0] == f"# drill: {drill}"
        tokens = [t for t in re.findall(r"#.*", "\n".join(lines[1:]))]
        assert not tokens, f"{bug.key}: a comment is left in the planted file: {tokens[:2]}"
        assert "HOLE" not in p.text
        tree = ast.parse(p.text)
        assert not any(isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
                       for n in ast.walk(tree)), f"{bug.key}: a docstring is left"
        assert bug.replace.strip().splitlines()[0].strip() in p.planted[0]  # the line recorded is the line planted
        assert lines[p.line - 1].strip() == p.planted[0]
        assert p.intended and p.intended != p.planted


def test_clean_removes_only_comments_and_docstrings():
    """The comment-free reference is the reference: same syntax tree once docstrings are left out."""
    def tree_without_docstrings(source):
        tree = ast.parse(source)
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                    and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
        return ast.dump(tree)

    for path in sorted({drills.get_spec(n).solution_path for n in drills.names()}):
        source = path.read_text(encoding="utf-8")
        lines, _ = catalog.clean(source)
        assert tree_without_docstrings("\n".join(lines)) == tree_without_docstrings(source), path.name


def test_a_stale_patch_is_drills_fault_not_the_learners():
    bug = catalog.bugs_for("mask")[0]
    stale = catalog.Bug(**{**bug.__dict__, "find": "this text is not in the reference"})
    with pytest.raises(catalog.CatalogError, match="occurs 0 times"):
        catalog.plant(stale, "mask")
    broken = catalog.Bug(**{**bug.__dict__, "replace": "mask = (offsets <"})
    with pytest.raises(catalog.CatalogError, match="does not parse"):
        catalog.plant(broken, "mask")


@pytest.mark.slow
@pytest.mark.parametrize("bug", BUGS, ids=[b.key for b in BUGS])
def test_planted_file_fails_with_its_category(bug, planted_files, verdict_of):
    v = verdict_of(planted_files[bug.key], device="cpu")
    assert not v.passed, f"{bug.key}: the planted mistake passes"
    assert v.diagnosis == bug.category or v.diagnosis in bug.also_ok, \
        f"{bug.key}: expected {bug.category}, got {v.diagnosis} ({v.detail})"


def test_start_bug_without_a_catalog_says_so(tmp_path, monkeypatch):
    from click.testing import CliRunner

    import cli

    monkeypatch.setenv("DRILL_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    lacking = sorted(NO_CATALOG_YET)[0] if NO_CATALOG_YET else "conv2d"
    if not NO_CATALOG_YET:  # every drill has its catalog: one without, as a drill added tomorrow would be
        real = catalog.bugs_for
        monkeypatch.setattr(catalog, "bugs_for", lambda name: [] if name == lacking else real(name))
    r = CliRunner().invoke(cli.main, ["start", lacking, "--bug"])
    assert r.exit_code == 2 and "no planted mistakes yet" in r.output and "--bug works for: offsets" in r.output
    assert "internal error" not in r.output and not list(tmp_path.glob("*.py"))
