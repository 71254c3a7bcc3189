import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from coach.mock import interview as M
from coach.store import Store
from grader.core.spec import ROOT
from grader.reporting.texts import checkpoints, checkpoints_for


def fake_verdict(passed, diagnosis=None, elapsed=0.5):
    return SimpleNamespace(passed=passed, diagnosis=None if passed else diagnosis, elapsed_s=elapsed)


class FakeGrader:
    """Passes when the file contains no HOLE(; otherwise fails with 'hole'. Costs `cost` s of fake time."""

    def __init__(self, clock=None, cost=0.0):
        self.calls, self.clock, self.cost = [], clock, cost

    def __call__(self, path, drill):
        self.calls.append((Path(path).name, drill))
        if self.clock:
            self.clock.advance(self.cost)
        text = Path(path).read_text()
        return fake_verdict("HOLE(" not in text, "hole")


def setup(tmp_path, drills=("vector-add",), qids=None, minutes=3, oral=120, clock=None, grader=None):
    qids = qids if qids is not None else [cid for cid, _ in checkpoints_for(drills[0])][:2]
    tasks, qs = M.prepare(tmp_path / "mock", list(drills), qids)
    clock = clock or M.FakeClock()
    grader = grader or FakeGrader(clock)
    mock = M.Mock(tasks, qs, code_seconds=minutes * 60, oral_seconds=oral, clock=clock, grader=grader)
    return mock, clock, grader


def solve(task):
    def do():
        spec_solution = ROOT / "solutions" / "vector_add.py"
        text = spec_solution.read_text()
        task.path.write_text(text + "\n# saved\n")
    return do


def write_wrong(task):
    skeleton = task.path.read_text()  # what prepare() wrote: the skeleton, holes and all

    def do():
        task.path.write_text(skeleton + "\n# still holes\n")
    return do


def test_full_flow_with_scripted_answers(tmp_path):
    mock, clock, grader = setup(tmp_path, grader=None)
    t = mock.tasks[0]
    q0, q1 = mock.questions
    assert q0.cid == "grid-cdiv"
    script = [
        (10, write_wrong(t)),        # a save that still fails
        (40, solve(t)),              # a save that passes
        (50, ""),                    # Enter: submit
        (60, "I think ONE PROGRAM PER TILE, and you ROUND UP so the partial last tile gets one"),  # typed, any case
        (61, "x"),                   # not a rating
        (62, "4"),
        (70, ""),                    # q1 answered aloud
        (71, "2"),
    ]
    card = M.run(mock, M.ScriptedInput(clock, script), poll_s=0.25)
    assert mock.phase == M.DONE
    code = card["code"][0]
    assert code["drill"] == "vector-add" and code["passed"] is True
    assert code["attempts"] == 2 and grader.calls == [("vector_add.py", "vector-add")] * 2
    assert 40 <= code["time_s"] <= 41  # time of the passing save, not of the submit
    assert card["submitted"] == "enter" and 50 <= card["used_s"] <= 51
    o0, o1 = card["oral"]
    assert o0["id"] == q0.cid and o0["covered"] == [0, 1] and o0["answered"] and o0["rating"] == 4
    assert o0["passed"] and o0["wrong_claims"] == [] and o0["kind"] == "checkpoint"
    assert 9 <= o0["answer_s"] <= 11
    assert o1["answered"] is False and o1["covered"] == [] and o1["rating"] == 2 and o1["passed"] is False
    kinds = [k for k, _ in mock.events]
    assert kinds.count("graded") == 2 and "rate-invalid" in kinds and kinds[-1] == "done"


def test_time_runs_out_submits_and_question_clock_expires(tmp_path):
    mock, clock, grader = setup(tmp_path, minutes=1, oral=30, qids=["why-mask"])
    start = clock()
    script = [(95, "5")]  # nothing typed until the question's clock (60 + 30 s) has run out
    card = M.run(mock, M.ScriptedInput(clock, script), poll_s=0.5)
    assert card["submitted"] == "time" and card["used_s"] == 60.0
    assert card["code"][0]["passed"] is False and card["code"][0]["attempts"] == 0
    assert card["code"][0]["diagnosis"] == "untouched"
    o = card["oral"][0]
    assert o["timed_out"] and o["answer_s"] == 30.0 and o["rating"] == 5
    assert grader.calls == []
    assert 90 <= clock() - start <= 96
    warnings = [d for k, d in mock.events if k == "time-warning"]
    assert {"which": "code", "left": 30} in warnings and {"which": "q0", "left": 10} in warnings
    assert {"which": "code", "left": 60} not in warnings  # a 60 s clock does not warn at 60 s


def test_save_just_before_enter_is_graded(tmp_path):
    mock, clock, grader = setup(tmp_path, qids=[])
    t = mock.tasks[0]
    card = M.run(mock, M.ScriptedInput(clock, [(5, solve(t)), (5, "")]), poll_s=1)
    assert card["code"][0]["passed"] and card["code"][0]["attempts"] == 1
    assert card["oral"] == []


def test_pass_then_break_counts_as_fail(tmp_path):
    mock, clock, _ = setup(tmp_path, qids=[])
    t = mock.tasks[0]
    card = M.run(mock, M.ScriptedInput(clock, [(5, solve(t)), (10, write_wrong(t)), (20, "")]), poll_s=1)
    c = card["code"][0]
    assert c["passed"] is False and c["diagnosis"] == "hole" and c["attempts"] == 2


def test_eof_submits_and_finishes(tmp_path):
    mock, clock, _ = setup(tmp_path)
    card = M.run(mock, M.ScriptedInput(clock, [(3, "")], eof=True), poll_s=1)
    assert mock.phase == M.DONE and card["submitted"] == "enter"
    assert [o["rating"] for o in card["oral"]] == [None, None]
    assert not any(o["passed"] for o in card["oral"])


def test_grader_exception_is_a_failed_attempt(tmp_path):
    def broken(path, drill):
        raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad byte")

    mock, clock, _ = setup(tmp_path, qids=[], grader=broken)
    t = mock.tasks[0]
    card = M.run(mock, M.ScriptedInput(clock, [(2, write_wrong(t)), (3, "")]), poll_s=1)
    assert card["code"][0]["diagnosis"] == "unreadable" and card["code"][0]["attempts"] == 1


def test_refuses_non_empty_folder(tmp_path):
    folder = tmp_path / "taken"
    folder.mkdir()
    (folder / "mine.py").write_text("keep me")
    with pytest.raises(M.MockError):
        M.prepare(folder, ["mask"], [])
    assert (folder / "mine.py").read_text() == "keep me" and len(list(folder.iterdir())) == 1
    empty = tmp_path / "empty"
    empty.mkdir()
    tasks, _ = M.prepare(empty, ["mask", "grid"], [])
    assert sorted(p.name for p in empty.iterdir()) == ["grid.py", "mask.py"]
    assert tasks[0].path.read_text().startswith("# drill: mask")


def test_oral_passed_rule():
    assert M.oral_passed(False, False, 4)        # said aloud: the rating decides
    assert not M.oral_passed(False, False, 2)
    assert not M.oral_passed(True, False, 5)     # typed: the score must pass whatever the self-rating
    assert M.oral_passed(True, True, 3)
    assert not M.oral_passed(True, True, None)
    assert M.oral_passed(True, True, None, "kernel")       # own-kernel numbers: the check decides alone
    assert not M.oral_passed(True, False, 5, "kernel")
    assert M.oral_passed(False, False, 4, "kernel")        # said aloud: rated like any question


def test_a_typed_answer_with_a_wrong_claim_fails_whatever_the_rating(tmp_path):
    mock, clock, _ = setup(tmp_path, qids=["program-id-is-a-tile"])
    t = mock.tasks[0]
    answer = ("It's a tile id, like blockIdx; the compiler spreads the tile over num_warps x 32 threads. "
              "Basically program_id is threadIdx.")
    card = M.run(mock, M.ScriptedInput(clock, [(5, solve(t)), (6, ""), (7, answer), (8, "5")]), poll_s=1)
    o = card["oral"][0]
    assert o["covered"] == [0, 1] and o["rating"] == 5 and not o["passed"]
    assert o["wrong_claims"] == ["program-id-is-thread"]


def test_pick_drills_unseen_then_weak():
    names = ["offsets", "mask", "grid", "vector-add"]
    now = 10_000.0
    state = {"drills": {
        "offsets": {"attempts": 3, "review": {"box": 2, "due": now + 999, "reviews": 3}},
        "mask": {"attempts": 2, "review": {"box": 0, "due": now - 5, "reviews": 2}},
        "grid": {"attempts": 1, "review": {"box": 3, "due": now - 5, "reviews": 1}},
    }}
    assert M.pick_drills(state, names, 4, seed=1, now=now) == ["vector-add", "mask", "grid", "offsets"]
    assert M.pick_drills(state, names, 1, seed=7, now=now) == ["vector-add"]
    fresh = {"drills": {}}
    a = M.pick_drills(fresh, names, 2, seed=3, now=now)
    assert a == M.pick_drills(fresh, names, 2, seed=3, now=now) and len(set(a)) == 2


def test_pick_questions_linked_and_due_first():
    now = 10_000.0
    linked = [cid for cid, _ in checkpoints_for("mask")]
    all_ids = list(checkpoints())
    got = M.pick_questions({"checkpoints": {}}, ["mask"], len(linked), seed=0, now=now)
    assert sorted(got) == sorted(linked)
    # the linked ones all reviewed and not due: unseen others come first
    state = {"checkpoints": {cid: {"review": {"box": 2, "due": now + 99, "reviews": 1}} for cid in linked}}
    others = [c for c in all_ids if c not in linked]
    got = M.pick_questions(state, ["mask"], len(all_ids), seed=0, now=now)
    assert sorted(got[:len(others)]) == sorted(others) and sorted(got[len(others):]) == sorted(linked)


def test_save_records_history_and_reviews(tmp_path):
    mock, clock, _ = setup(tmp_path, qids=["why-mask", "grid-cdiv"])
    t = mock.tasks[0]
    q0 = mock.questions[0]
    script = [(5, solve(t)), (6, ""), (7, checkpoints()["why-mask"]["answer"]["en"]), (8, "5"), (9, ""), (10, "1")]
    card = M.run(mock, M.ScriptedInput(clock, script), poll_s=1)
    store = Store()
    M.save(store, card, now=5000.0)
    state = store.read()
    assert len(state["mocks"]) == 1 and state["mocks"][0]["at"] == 5000.0
    d = state["drills"]["vector-add"]
    assert d["mocks"] == 1 and d["best_mock_s"] == card["code"][0]["time_s"] and d["review"]["box"] == 1
    good, bad = state["checkpoints"]["why-mask"], state["checkpoints"]["grid-cdiv"]
    assert good["asked"] == 1 and good["passes"] == 1 and good["best_covered"] == len(q0.rubric)
    assert good["review"]["box"] == 1 and good["review"]["due"] > 5000.0
    assert bad["passes"] == 0 and bad["review"]["due"] == 5000.0 and bad["best_covered"] is None
    # a second mock, slower: the best time stays
    card2 = dict(card, code=[dict(card["code"][0], time_s=999.0)], oral=[])
    M.save(store, card2, now=6000.0)
    state = store.read()
    assert state["drills"]["vector-add"]["best_mock_s"] == card["code"][0]["time_s"]
    assert len(state["mocks"]) == 2


@pytest.mark.slow
def test_real_grader_on_reference_solution(tmp_path):
    from grader.run import runner

    clock = M.FakeClock()
    tasks, qs = M.prepare(tmp_path / "mock", ["vector-add"], [])

    def grade(path, drill):
        return runner.grade(path, drill=drill, device="cpu")

    mock = M.Mock(tasks, qs, code_seconds=60, oral_seconds=60, clock=clock, grader=grade)
    t = tasks[0]
    script = [(1, lambda: t.path.write_text(t.path.read_text() + "\n")),  # the skeleton: fails with 'hole'
              (2, lambda: shutil.copy(ROOT / "solutions" / "vector_add.py", t.path)),
              (3, "")]
    card = M.run(mock, M.ScriptedInput(clock, script, eof=True), poll_s=0.5)  # EOF: leave the oral round unrated
    c = card["code"][0]
    verdicts = [d["verdict"] for k, d in mock.events if k == "graded"]
    assert [v.diagnosis for v in verdicts] == ["hole", None]
    assert c["passed"] and c["attempts"] == 2 and c["grade_s"] > 0
    (k,) = card["oral"]  # the real verdict's evidence gives a question about this kernel
    assert k["kind"] == "kernel" and k["drill"] == "vector-add" and k["rating"] is None


def test_background_grades_keep_the_clock_running(tmp_path):
    """With background jobs the loop keeps ticking while a grade runs; a save during a grade is graded after it."""
    clock = M.FakeClock()
    jobs = []

    class SlowJob:  # grades the file as it is now; the verdict is "back" 10 s of fake time later
        def __init__(self, fn, *args):
            self.value, self.ready_at = fn(*args), clock() + 10
            jobs.append(self)

        def done(self):
            return clock() >= self.ready_at

        def result(self):
            return self.value

    grader = FakeGrader()
    tasks, qs = M.prepare(tmp_path / "mock", ["vector-add"], [])
    mock = M.Mock(tasks, qs, code_seconds=120, oral_seconds=60, clock=clock, grader=grader, background=SlowJob)
    t = tasks[0]
    ticks_while_grading = []
    script = [(2, write_wrong(t)), (5, solve(t)), (40, "")]
    M.run(mock, M.ScriptedInput(clock, script), poll_s=0.5,
          on_tick=lambda m: ticks_while_grading.append(m.grading()))
    assert sum(ticks_while_grading) >= 30  # the loop kept turning (countdown drawn) while grades ran
    assert len(jobs) == 2 and t.attempts == 2 and t.passed
    graded = [d["verdict"].passed for k, d in mock.events if k == "graded"]
    assert graded == [False, True]  # the save at 2 s (holes), then the save at 5 s, made during the first grade
    assert 22 <= t.pass_at <= 24  # second grade started when the first came back (~12 s), done ~10 s later


def test_submit_waits_for_a_running_grade(tmp_path):
    clock = M.FakeClock()

    class NeverDoneUntilWaited:
        def __init__(self, fn, *args):
            self.fn, self.args = fn, args

        def done(self):
            return False

        def result(self):
            return self.fn(*self.args)

    tasks, qs = M.prepare(tmp_path / "mock", ["vector-add"], [])
    mock = M.Mock(tasks, qs, code_seconds=120, oral_seconds=60, clock=clock, grader=FakeGrader(),
                  background=NeverDoneUntilWaited)
    card = M.run(mock, M.ScriptedInput(clock, [(2, solve(tasks[0])), (4, "")]), poll_s=0.5)
    assert card["code"][0]["passed"] and card["code"][0]["attempts"] == 1


def test_the_coding_clock_is_longer_when_a_tensor_core_drill_is_drawn():
    assert M.coding_minutes(["mask"], None) == M.DEFAULT_CODE_MINUTES
    assert M.coding_minutes(["mask", "attention"], None) == 40
    assert M.coding_minutes(["attention"], 5) == 5  # --minutes wins


def test_a_save_made_while_the_mock_is_starting_is_graded(tmp_path):
    """The skeletons' stamps are taken when drill writes them: a save that lands before start() (the warm worker
    can take seconds to start) is a change, graded at the first tick, not the new baseline. (A race the
    SIGTERM test in test_worker.py lost under load.)"""
    import os
    mock, clock, grader = setup(tmp_path)
    t = mock.tasks[0]
    solve(t)()
    st = os.stat(t.path)
    os.utime(t.path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # a later mtime even on a coarse clock
    mock.start()
    mock.tick()
    assert t.attempts == 1 and t.passed
