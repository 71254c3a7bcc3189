"""`drill start NAME --bug`, its grades, hints and progress, as a learner uses them (CliRunner in a temporary folder)."""
import json
import random
import re

import pytest
from click.testing import CliRunner

import cli
import drills
from coach.bughunt import catalog, compare, hunts
from coach.bughunt import progress as bug_progress
from coach.store import Store, empty_state


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()

    def invoke(*args):
        r = runner.invoke(cli.main, list(args), catch_exceptions=False)
        r.flat = " ".join(r.output.split())  # the console wraps at 80 columns
        return r
    return invoke


def marker(path):
    return hunts.marker_for(Store().read(), str(path.resolve()))


def test_start_bug_writes_a_planted_kernel_and_a_marker_outside_it(run, tmp_path):
    r = run("start", "mask", "--bug")
    assert r.exit_code == 0, r.output
    text = (tmp_path / "mask.py").read_text()
    m = marker(tmp_path / "mask.py")
    assert m and m["drill"] == "mask" and m["text"] == text
    bug = catalog.find("mask", m["bug"])
    assert text.splitlines()[0] == "# drill: mask"
    assert "HOLE" not in text and "#" not in "\n".join(text.splitlines()[1:])  # nothing points at the bug
    assert bug.id not in text
    assert text.splitlines()[m["line"] - 1].strip() == m["planted"][0]
    assert "one mistake" in r.flat and "drill grade mask.py" in r.flat


def test_start_bug_never_overwrites(run, tmp_path):
    (tmp_path / "mask.py").write_text("mine")
    r = run("start", "mask", "--bug")
    assert r.exit_code == 2 and (tmp_path / "mask.py").read_text() == "mine"


def test_never_the_same_bug_twice_in_a_row_and_every_kind_in_turn():
    state = empty_state()
    rng = random.Random(3)
    seen = []
    for i in range(12):
        bug = hunts.choose(state, "vector-add", rng)
        hunts.open_hunt(state, f"/tmp/f{i}.py", catalog.plant(bug, "vector-add"), now=float(i))
        seen.append(bug)
    assert all(a.id != b.id for a, b in zip(seen, seen[1:]))
    kinds = {b.category for b in catalog.bugs_for("vector-add")}
    assert {b.category for b in seen[:len(kinds)]} == kinds  # each kind met before any is met twice
    met = hunts.section(state)["drills"]["vector-add"]["met"]
    assert set(met) == {b.id for b in catalog.bugs_for("vector-add")}  # 12 draws of 7 bugs: all met


def test_choose_with_one_candidate_left_still_avoids_the_last():
    state = empty_state()
    first = hunts.choose(state, "grid", random.Random(0))
    hunts.open_hunt(state, "/tmp/a.py", catalog.plant(first, "grid"), now=1.0)
    second = hunts.choose(state, "grid", random.Random(0))
    assert second.id != first.id


def planted_marker(drill, bug_id):
    p = catalog.plant(catalog.find(drill, bug_id), drill)
    state = empty_state()
    return hunts.open_hunt(state, "/tmp/x.py", p, now=0.0), p


def test_compare_the_intended_fix_another_fix_and_a_fix_elsewhere():
    m, p = planted_marker("mask", "mask-le")
    lines = p.text.splitlines()
    fixed = list(lines)
    fixed[p.line - 1] = fixed[p.line - 1].replace("<=", "<") + "   # strict"
    assert compare.compare(m, fixed)["kind"] == "intended"  # a comment of one's own is no change
    other = list(lines)
    other[p.line - 1] = "    mask = n_elements > offsets"
    c = compare.compare(m, other)
    assert c["kind"] == "other" and c["yours"] == ["mask = n_elements > offsets"] and not c["others"]
    elsewhere = list(lines)
    i = next(k for k, ln in enumerate(lines) if "x = tl.load" in ln)
    elsewhere[i] = elsewhere[i].replace("mask=mask", "mask=offsets < n_elements")
    c = compare.compare(m, elsewhere)
    assert c["kind"] == "elsewhere" and c["others"] == [i + 1]


def test_compare_ignores_the_references_comments_and_docstrings():
    m, p = planted_marker("mask", "mask-store-unmasked")
    reference = drills.get_spec("mask").solution_path.read_text().replace("vector-add", "mask")
    c = compare.compare(m, reference.splitlines())
    assert c == {"kind": "intended", "yours": [m["intended"][0]], "others": []}


@pytest.mark.parametrize("drill,bug_id", [("softmax", "no-max-subtraction"),   # the patch took a line away
                                           ("graph-breaks", "print-in-step"),    # the patch added a line
                                           ("decode-attention", "kv-head-zero")])  # two lines changed
def test_compare_the_reference_put_back_is_the_intended_fix(drill, bug_id):
    """Restoring the reference is the intended fix, also where the patch deleted or inserted a line (comparing the
    changed lines alone saw 'x = x - max' against 'x = x - max / num = exp(x)' and called it another fix)."""
    m, p = planted_marker(drill, bug_id)
    reference = drills.get_spec(drill).solution_path.read_text().splitlines()
    assert compare.compare(m, reference)["kind"] == "intended"
    lines = p.text.splitlines()
    other = lines[:p.line - 1] + ["    pass"] + lines[max(p.lines):]
    assert compare.compare(m, other)["kind"] == "other"
    assert compare.compare(m, lines)["kind"] == "elsewhere"


def test_a_bug_of_two_edits_plants_both_and_points_at_the_main_one():
    """layernorm's race needs the partial buffers zeroed in the wrapper and a load-add-store in the kernel: both
    places are planted lines, hints and the review point at the kernel's (the main edit), and putting the reference
    back at both is the intended fix; a fix at one place only is another fix."""
    bug = catalog.find("layernorm", "shared-row-no-lock")
    assert bug.also
    m, p = planted_marker("layernorm", "shared-row-no-lock")
    lines = p.text.splitlines()
    assert len(p.blocks) == 2 and p.line == p.blocks[0][0] < p.blocks[1][0]
    assert "tl.load(PartialDW + cols" in lines[p.line - 1] and "torch.zeros" in lines[p.blocks[1][0] - 1]
    assert set(p.lines) == {n for first, last, _ in p.blocks for n in range(first, last + 1)}
    reference = drills.get_spec("layernorm").solution_path.read_text().splitlines()
    assert compare.compare(m, reference)["kind"] == "intended"
    one = list(lines)
    one[p.blocks[1][0] - 1] = one[p.blocks[1][0] - 1].replace("torch.zeros", "torch.empty")
    assert compare.compare(m, one)["kind"] == "other"
    from coach.bughunt import flow
    assert flow.where(m) == f"{p.line}, {p.blocks[1][0]}"  # the hint's and the note's "line 49, 105"
    assert flow.where(planted_marker("softmax", "no-max-subtraction")[0]) == str(
        planted_marker("softmax", "no-max-subtraction")[1].line)
    for bad in ("x", [[1]], [["a", 2, []]]):  # a state file edited by hand: one block, as an older marker
        assert compare.compare({**m, "blocks": bad}, reference)["kind"] in ("intended", "other")
        assert flow.where({**m, "blocks": bad}) == str(p.line)
    stale = catalog.Bug(**{**bug.__dict__, "also": (("this text is not in the reference", "x"),)})
    with pytest.raises(catalog.CatalogError, match="occurs 0 times"):
        catalog.plant(stale, "layernorm")


@pytest.mark.slow
def test_grade_a_bug_file_counts_as_a_hunt_then_says_what_was_planted(run, tmp_path):
    assert run("start", "mask", "--bug").exit_code == 0
    path = tmp_path / "mask.py"
    m = marker(path)
    r = run("grade", "mask.py", "--device", "cpu")
    assert r.exit_code == 1 and "Bug found" not in r.output  # still wrong: the report as usual, nothing given away
    bug = catalog.find("mask", m["bug"])
    lines = path.read_text().splitlines()
    lines[m["line"] - 1] = lines[m["line"] - 1].replace(m["planted"][0], m["intended"][0])
    path.write_text("\n".join(lines) + "\n")
    r = run("grade", "mask.py", "--device", "cpu", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["passed"] and data["bug_hunt"]["bug"] == bug.id and data["bug_hunt"]["line"] == m["line"]
    assert any("intended one" in line for line in data["bug_hunt"]["note"])
    r = run("grade", "mask.py", "--device", "cpu")
    assert f"on line {m['line']} ({bug.category})" in r.flat and "Your fix is the intended one." in r.flat
    state = Store().read()
    assert "mask" not in state["drills"]  # not a drill attempt from the skeleton
    rec = state["bug_hunts"]["drills"]["mask"]
    assert (rec["started"], rec["graded"], rec["fixed"]) == (1, 3, 1)
    rows = bug_progress.rows(state, "en")
    assert rows == [["mask", "1", "3", "1", "0/0", "0/0", bug.category, "fixed"]]
    r = run("progress")
    assert "bug hunts" in r.output


def test_hint_for_a_bug_file_part_then_line_then_what(run, tmp_path):
    assert run("start", "grid", "--bug").exit_code == 0
    m = marker(tmp_path / "grid.py")
    bug = catalog.find("grid", m["bug"])
    first = run("hint", "grid").flat
    assert "1/3" in first and bug.part["en"] in first and str(m["line"]) not in re.sub(r"\d+/\d+", "", first)
    second = run("hint", "grid").flat
    assert f"line {m['line']}" in second and m["planted"][0] in second
    third = run("hint", "grid", "--lang", "zh").output
    assert "3/3" in third and bug.explain["zh"][:8] in third
    assert "1/3" in run("hint", "grid", "--reset").flat


def test_hint_without_a_bug_file_is_the_drills_own(run, tmp_path):
    assert run("start", "grid", "--bug").exit_code == 0
    (tmp_path / "grid.py").unlink()  # the bug file is gone: the drill's hints again
    r = run("hint", "grid")
    assert "bug" not in r.output and "hint 1/" in r.output
