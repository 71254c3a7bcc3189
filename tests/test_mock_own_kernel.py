"""Questions about the learner's own kernel (coach/mock/own_kernel.py), from real verdict evidence recorded in
tests/fixtures/oral_evidence.json (`drill grade solutions/<drill>.py --device cpu --json`, torch 2.13 / triton 3.9),
and their place in the mock interview."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from coach.mock import interview as M
from coach.mock import own_kernel as K
from coach.store import Store
from grader.core.spec import ROOT

EVIDENCE = json.loads((Path(__file__).parent / "fixtures" / "oral_evidence.json").read_text())


def verdict(drill, passed=True, evidence=None):
    data = EVIDENCE[drill]
    return SimpleNamespace(passed=passed, diagnosis=None if passed else "grid", elapsed_s=1.0,
                           evidence=copy.deepcopy(data["evidence"] if evidence is None else evidence))


def by_id(drill, **kw):
    return {q.qid: q for q in K.questions(verdict(drill, **kw), drill)}


# ------------------------------------------------------------------------------------------------- numbers

@pytest.mark.parametrize("text, value", [
    ("98", 98), ("98 programs", 98), ("九十八个", 98), ("三百九十一", 391), ("1,200,000 bytes", 1200000),
    ("1.2 MB", 1.2e6), ("1.2e6", 1.2e6), ("120万字节", 1.2e6), ("一百二十万", 1200000), ("2 MiB", 2 * 2 ** 20),
    ("1 200 000", 1200000), ("100 000", 100000), ("1200 KB", 1.2e6),
])
def test_numbers_are_read_leniently(text, value):
    assert any(abs(n.value - value) < 1e-6 * max(1, value) for n in K.numbers(text)), (text, K.numbers(text))


def test_plain_words_and_identifiers_are_not_numbers():
    assert [n.value for n in K.numbers("fp32 and int64 in 一个 kernel")] == []


# ------------------------------------------------------------------------------------------------- questions

def test_vector_add_questions_carry_the_numbers_of_its_grade():
    qs = by_id("vector-add")
    assert set(qs) == {"kernel-programs", "kernel-bytes", "kernel-mask"}
    programs = qs["kernel-programs"]
    assert "n = 100 000" in programs.text["en"] and "n = 100 000" in programs.text["zh"]
    assert [p.expected for p in programs.parts] == [[98], [391]]               # cdiv(1e5, 1024), cdiv(1e5, 256)
    assert "cdiv(100 000, 1024) = 98" in programs.answer["en"] and "390.6" in programs.answer["en"]
    assert [p.expected for p in qs["kernel-mask"].parts] == [[24], [672]]     # solutions/vector_add.py line 24
    assert [p.expected for p in qs["kernel-bytes"].parts] == [[1200000]]      # no bytes model: no eager part


def test_the_mask_line_is_the_line_of_the_learners_store():
    line = next(i for i, t in enumerate((ROOT / "solutions" / "vector_add.py").read_text().splitlines(), 1)
                if "tl.store(" in t)
    assert by_id("vector-add")["kernel-mask"].parts[0].expected == [line]


def test_fused_drills_ask_for_eager_bytes_too():
    fuse = by_id("fuse")["kernel-bytes"]
    assert [p.expected for p in fuse.parts] == [[1200000], [2000000]]
    assert "12 bytes per element" in fuse.answer["en"] and "20 bytes per element" in fuse.answer["en"]
    gelu = by_id("gelu")["kernel-bytes"]
    assert [p.expected for p in gelu.parts] == [[800000], [8800000]]


def test_row_and_capped_grids_get_their_own_arithmetic():
    soft = by_id("softmax")
    assert [p.expected for p in soft["kernel-programs"].parts] == [[37], [1024]]   # one program per row, BLOCK
    assert [p.expected for p in soft["kernel-mask"].parts] == [[25], [243]]       # 1024 - 781 lanes per row
    pers = by_id("persistent")["kernel-programs"]
    assert [p.expected for p in pers.parts] == [[16], [7]]                          # cap 16, cdiv(98 tiles, 16)


def test_grids_whose_arithmetic_is_not_cdiv_get_no_programs_question():
    # a matmul launches one program per 2-D output tile, not cdiv(M*N, BLOCK_M): ask about bytes only
    assert set(by_id("matmul")) == {"kernel-bytes"}
    # a device with a program cap: no "with another block size" part, and the capped arithmetic above the cap
    heur = by_id("heuristics")["kernel-programs"]
    assert [p.expected for p in heur.parts] == [[32], [4]]                      # 98 tiles over 32 programs
    ev = [r for r in EVIDENCE["heuristics"]["evidence"] if r["size"] == 12289]
    small = by_id("heuristics", evidence=ev)["kernel-programs"]
    assert [p.expected for p in small.parts] == [[25]]                          # under the cap: programs only


def test_no_question_without_its_evidence():
    assert K.questions(verdict("vector-add", passed=False), "vector-add") == []
    assert K.questions(SimpleNamespace(passed=True), "vector-add") == []           # a verdict with no evidence
    ev = copy.deepcopy(EVIDENCE["vector-add"]["evidence"])
    for row in ev:
        row["bytes"] = None
        row["masked_stores"] = []
    assert set(by_id("vector-add", evidence=ev)) == {"kernel-programs"}
    for row in ev:
        row["category"] = "wrong-values"                                           # rows of a failing call
    assert by_id("vector-add", evidence=ev) == {}


def test_a_mask_whose_lanes_tell_another_story_is_not_asked_about():
    ev = copy.deepcopy(EVIDENCE["vector-add"]["evidence"])
    for row in ev:
        for s in row["masked_stores"]:
            s["lanes"] += 1
    assert "kernel-mask" not in by_id("vector-add", evidence=ev)


@pytest.mark.parametrize("drill", sorted(EVIDENCE))
def test_texts_are_filled_in_both_languages(drill):
    for q in K.questions(verdict(drill), drill):
        for lang in ("en", "zh"):
            for text in (q.text[lang], q.answer[lang]) + tuple(p.label[lang] for p in q.parts):
                assert text and not re.search(r"[{}]", text), (drill, q.qid, lang, text)
        assert re.search(r"[\u4e00-\u9fff]", q.text["zh"])


# ------------------------------------------------------------------------------------------------- checking

@pytest.mark.parametrize("answer, passed", [
    ("98 and 391", True),
    ("cdiv(100000, 1024) is 98, and 100000 / 256 = 390.6 so 391", True),
    ("九十八个，BLOCK_SIZE 256 的时候三百九十一个", True),
    ("98 programs", False),                 # one part missing
    ("97 and 390", False),                  # rounded down
    ("98 or 99, and 391", False),           # two guesses for one part
])
def test_programs_answers(answer, passed):
    q = by_id("vector-add")["kernel-programs"]
    assert K.check(q, answer).passed is passed


@pytest.mark.parametrize("answer, passed", [
    ("1.2 MB, and eager 2 MB", True),
    ("1200000 bytes vs 2000000", True),
    ("1.14 MiB and 1.9 MiB", True),         # within 2 %
    ("120万字节，eager 两百万", True),
    ("1.1 MiB and 2 MB", False),            # 3.9 % off
    ("2 MB and 1.2 MB", True),              # order does not matter
    ("800000 and 2000000", False),          # loads only
])
def test_bytes_answers(answer, passed):
    q = by_id("fuse")["kernel-bytes"]
    assert K.check(q, answer).passed is passed, K.check(q, answer)


def test_mask_answers_and_the_unexplained_number():
    q = by_id("vector-add")["kernel-mask"]
    assert K.check(q, "line 24, lane 672").passed
    assert K.check(q, "第 24 行，第一个被 mask 的是 lane 672").passed
    r = K.check(q, "line 24, lane 673")
    assert not r.passed and r.points[1]["found"] is False and r.unexplained == ["673"]


# ------------------------------------------------------------------------------------------------- in the mock

class EvidenceGrader:
    """Passes once the file has no HOLE( and returns the recorded evidence of DRILL; fails before."""

    def __init__(self, drill="vector-add"):
        self.drill = drill

    def __call__(self, path, drill):
        passed = "HOLE(" not in Path(path).read_text()
        return verdict(self.drill, passed=passed)


def run_mock(tmp_path, script, qids=("grid-cdiv",), kernel_questions=1, seed=0):
    tasks, qs = M.prepare(tmp_path / "mock", ["vector-add"], list(qids))
    clock = M.FakeClock()
    mock = M.Mock(tasks, qs, code_seconds=120, oral_seconds=60, clock=clock, grader=EvidenceGrader(),
                  kernel_questions=kernel_questions, rng=__import__("random").Random(seed))
    script = [(at, what(tasks[0]) if callable(what) else what) for at, what in script]
    card = M.run(mock, M.ScriptedInput(clock, script, eof=True), poll_s=0.5)  # EOF ends what the script leaves open
    return mock, card


def solved(task):
    return lambda: task.path.write_text((ROOT / "solutions" / "vector_add.py").read_text())


def test_after_a_pass_the_oral_round_opens_with_a_checked_question_about_your_kernel(tmp_path):
    answers = {"kernel-programs": "98 and 391", "kernel-bytes": "1.2 MB", "kernel-mask": "line 24, lane 672"}
    for seed in range(3):  # whichever question the seed picks, the right numbers pass without a self-rating
        mock, _ = run_mock(tmp_path / str(seed), [(2, solved), (3, "")], seed=seed)
        first = mock.questions[0]
        folder = tmp_path / f"again{seed}"
        mock, card = run_mock(folder, [(2, solved), (3, ""), (5, answers[first.cid]), (7, ""), (8, "4")], seed=seed)
        k, c = card["oral"]
        assert k["kind"] == "kernel" and k["drill"] == "vector-add" and k["passed"] and k["rating"] is None
        assert c["id"] == "grid-cdiv" and c["rating"] == 4
        kinds = [kind for kind, _ in mock.events]
        assert kinds.index("rated") < kinds.index("question", kinds.index("rated"))


def test_a_wrong_number_fails_and_said_aloud_is_rated(tmp_path):
    mock, card = run_mock(tmp_path / "a", [(2, solved), (3, ""), (5, "97, 97, 97"), (7, "")], qids=())
    (k,) = card["oral"]
    assert k["answered"] and not k["passed"] and k["rating"] is None
    mock, card = run_mock(tmp_path / "b", [(2, solved), (3, ""), (5, ""), (6, "4")], qids=())
    (k,) = card["oral"]
    assert not k["answered"] and k["rating"] == 4 and k["passed"]


def test_no_kernel_question_when_the_code_fails_or_when_turned_off(tmp_path):
    _, card = run_mock(tmp_path / "a", [(3, "")])                      # skeleton submitted: it fails
    assert [o["kind"] for o in card["oral"]] == ["checkpoint"]
    _, card = run_mock(tmp_path / "b", [(2, solved), (3, "")], kernel_questions=0)
    assert [o["kind"] for o in card["oral"]] == ["checkpoint"]
    _, card = run_mock(tmp_path / "c", [(2, solved), (3, "")], kernel_questions=3)
    assert sorted(o["id"] for o in card["oral"] if o["kind"] == "kernel") == \
        ["kernel-bytes", "kernel-mask", "kernel-programs"]


def test_kernel_answers_stay_in_the_scorecard_but_get_no_review_box(tmp_path):
    _, card = run_mock(tmp_path, [(2, solved), (3, ""), (5, "98 and 391"), (7, "")])
    store = Store()
    M.save(store, card, now=100.0)
    state = store.read()
    assert not any(k.startswith("kernel-") for k in state["checkpoints"])
    assert state["mocks"][-1]["oral"][0]["kind"] == "kernel"
