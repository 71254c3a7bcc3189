"""The mock's code-review round: a planted kernel shown with line numbers; the line checked exactly, the fix sentence
by the oral round's concept scoring; the scorecard and the saved state keep the planted mistake."""
import io
import random

import pytest
from rich.console import Console

from coach.bughunt import catalog, hunts, review
from coach.mock import interview as M
from coach.mock import tui
from coach.store import Store, empty_state
from tests.test_mock import FakeGrader, solve


def catalog_drills():
    """The drills with planted mistakes (all of them, since every drill has its catalog)."""
    import drills
    return [n for n in drills.names() if catalog.bugs_for(n)]


def rq(drill, bug_id):
    return review.question(catalog.plant(catalog.find(drill, bug_id), drill))


@pytest.mark.parametrize("answer,passed,line_ok", [
    ("16: use a strict < so lane n_elements is off", True, True),
    ("line 16 — it should be offsets < n_elements", True, True),
    ("第16行：应该用严格小于，不是 <=", True, True),
    ("17: use a strict <", False, False),                    # the wrong line, whatever the sentence
    ("16: the mask is wrong", False, True),                 # the right line, but no fix in the sentence
    ("use a strict < instead of <=", False, False),          # no line number
])
def test_line_exact_and_sentence_scored(answer, passed, line_ok):
    q = rq("mask", "mask-le")
    assert q.planted.line == 16
    s = review.check(q, answer)
    assert (s.passed, s.line_ok) == (passed, line_ok), s.points
    assert s.points[0]["found"] == line_ok and len(s.points) == 1 + len(q.bug.rubric)


def test_every_bugs_own_fix_sentence_passes_its_rubric():
    """The catalog's intended fix, said with the right line, passes; said with the wrong line, fails."""
    for bug in catalog.all_bugs():
        drill = catalog.drills_for(bug)[0]
        q = review.question(catalog.plant(bug, drill))
        for lang in ("en", "zh"):
            s = review.check(q, f"{q.planted.line}: {bug.fix[lang]}", lang)
            assert s.passed, (bug.key, lang, s.points)
        assert not review.check(q, f"{max(q.planted.lines) + 1}: {bug.fix['en']}").passed
        for vague in ("this line is wrong, it has a bug", "这一行有 bug，要改一下"):
            assert not review.check(q, f"{q.planted.line}: {vague}").passed, (bug.key, vague)


def test_pick_reviews_avoids_the_coded_drill_and_never_repeats_the_last_bug():
    state = empty_state()
    qs = review.pick_reviews(state, 3, ["vector-add"], random.Random(0))
    assert len(qs) == 3 and "vector-add" not in {q.drill for q in qs}
    q = qs[0]
    review.record(state, {"drill": q.drill, "passed": True,
                          "planted": {"bug": q.bug.id, "category": q.bug.category}}, now=1.0)
    for seed in range(5):
        again = review.pick_reviews(state, len(catalog_drills()), [], random.Random(seed))  # every drill
        same = [x for x in again if x.drill == q.drill]
        assert same and same[0].bug.id != q.bug.id
    assert hunts.section(state)["drills"][q.drill]["reviewed"] == 1


def test_mock_with_a_review_round_scores_it_and_saves_the_planted_mistake(tmp_path):
    tasks, qs = M.prepare(tmp_path / "mock", ["vector-add"], [])
    clock = M.FakeClock()
    q = rq("softmax", "other-zero")
    qs[:0] = M.review_questions(empty_state(), 0, [], random.Random(0), 300)  # none asked for: none made
    qs[:0] = [M.Question(cid=q.qid, text=q.text, answer=q.answer, rubric=q.rubric, kind="review", review=q,
                         drill=q.drill, seconds=300)]
    mock = M.Mock(tasks, qs, code_seconds=180, oral_seconds=60, clock=clock, grader=FakeGrader(clock),
                  kernel_questions=0)
    line = q.planted.line
    script = [(5, solve(tasks[0])), (10, ""), (200, f"{line}: masked lanes must load -inf, the identity of max")]
    card = M.run(mock, M.ScriptedInput(clock, script), poll_s=0.25)
    (o,) = card["oral"]
    assert o["kind"] == "review" and o["passed"] and o["rating"] is None  # 190 s in: the review's own 300 s clock
    assert o["planted"]["bug"] == "other-zero" and o["planted"]["line"] == line and o["line_given"] == line
    saved = M.save(Store(), card)
    state = Store().read()
    assert "review:softmax:other-zero" not in state["checkpoints"]  # not an oral checkpoint
    rec = state["bug_hunts"]["drills"]["softmax"]
    assert rec["reviewed"] == 1 and rec["review_passes"] == 1 and rec["last_bug"] == "other-zero"
    out = io.StringIO()
    con = Console(file=out, width=140, no_color=True)
    for t in tui.scorecard_tables(saved, "en"):
        con.print(t)
    text = out.getvalue()
    assert "the planted mistakes" in text and "Masked lanes load 0" in text and f"{line} ✓" in text


def test_the_review_question_shows_the_numbered_kernel(tmp_path):
    q = rq("mask", "mask-le")
    said = []
    ui = tui.TerminalUI("en", out=io.StringIO())
    ui.say = lambda text="", style=None: said.append(text)
    mq = M.Question(cid=q.qid, text=q.text, answer=q.answer, rubric=q.rubric, kind="review", review=q, drill="mask",
                    seconds=300)
    mock = M.Mock([], [mq], code_seconds=1, oral_seconds=60, clock=M.FakeClock(), grader=None)
    mock.t0 = 0.0
    ui("question", {"q": mq, "index": 0}, mock)
    assert "16 |     mask = offsets <= n_elements" in said
    assert any("Code review (mask)" in s and "5 min" in s for s in said)
    mq.answer_text, mq.score = "17: strict <", review.check(q, "17: strict <")
    ui("review", {"q": mq, "index": 0}, mock)
    assert any("line 16, not 17" in s for s in said)
