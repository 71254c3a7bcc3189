"""Falsehoods written from the checkpoints' points (issue 19, third pass): tests/oral/probes19n/ holds, for every
checkpoint, wrong answers that state its true points plus one confident falsehood (a reversed direction, a wrong
number, a neighbouring concept swapped in, a point denied) and a right answer that says the points in other words.
Each falsehood is failed by a named claim whose correction is said to the learner in the answer's language, quoting
the learner's own sentence; each paraphrase passes. The general reading rules found on the way are tested here too."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from coach.oral import scoring
from coach.oral.text import normalise
from grader.reporting.texts import checkpoints

PROBES = Path(__file__).parent / "oral" / "probes19n"
CJK = re.compile(r"[\u4e00-\u9fff]")
FILES = sorted(PROBES.glob("*.yaml"))


def test_every_checkpoint_has_content_written_falsehoods():
    assert {p.stem for p in FILES} == set(checkpoints())


def test_every_listed_claim_says_what_and_why_in_both_languages():
    table = scoring.claims()
    for cid, cp in checkpoints().items():
        for entry in cp.get("wrong") or []:
            c = table[entry] if isinstance(entry, str) else entry
            for field in ("claim", "why"):
                texts = c.get(field) or {}
                assert (texts.get("en") or "").strip() and not CJK.search(texts["en"]), (cid, entry, field)
                assert CJK.search(texts.get("zh") or ""), (cid, entry, field)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_each_falsehood_fails_with_a_named_claim_and_its_reason(path):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    for lang in ("en", "zh"):
        for answer in data[lang]["wrong"]:
            s = scoring.score(path.stem, answer, lang)
            assert not s.passed and s.wrong_claims, (lang, answer)
            for w in s.wrong_claims:
                assert w["claim"].strip() and w["why"].strip(), (lang, w)
                assert bool(CJK.search(w["why"])) == (lang == "zh"), (lang, w["why"])  # the reason in the answer's language
                assert w["quote"] and w["quote"] in normalise(answer), (lang, w["quote"])  # the learner's own words


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_each_paraphrase_passes(path):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    for lang in ("en", "zh"):
        for answer in data[lang]["right"]:
            s = scoring.score(path.stem, answer, lang)
            assert s.passed, (lang, [w["id"] for w in s.wrong_claims], [p["found"] for p in s.points], answer)


def test_a_consequence_after_a_claim_is_not_its_rebuttal():
    # "..., and the results are wrong" says what follows; it does not take the statement back
    bad = "When BLOCK_SIZE is smaller than num_warps x 32, the extra threads read past the tile and the results are wrong."
    assert "extra-threads-wrong-results" in {w["id"] for w in scoring.score("program-id-is-a-tile", bad, "en").wrong_claims}
    assert scoring.CONSEQUENCE.search(" and the results ")


def test_a_partial_tile_is_no_negation():
    # 不满的尾块 is "the partial tail", not a negated one: the claim after it is the candidate's
    bad = "向下取整的话，不满的尾块由前一个 program 顺便处理。"
    assert "tail-by-previous-program" in {w["id"] for w in scoring.score("grid-cdiv", bad, "zh").wrong_claims}


@pytest.mark.parametrize("cid,lang,text", [
    ("mixed-precision", "zh", "归约前先 .to(tl.float32)，tl.sum 不会自己把 bf16 升精度。"),
    ("mixed-precision", "en", "Upcast with .to(tl.float32) before the reduction: tl.sum won't upcast bf16 by itself."),
])
def test_what_does_not_happen_by_itself_is_not_a_denial_of_doing_it(cid, lang, text):
    assert not [w for w in scoring.score(cid, text, lang).wrong_claims if "denies-point" in w["id"]]


def test_the_denial_itself_still_fails():
    s = scoring.score("mixed-precision", "No need to upcast before reductions, bf16 is fine.", "en")
    assert "mixed-precision:denies-point-3" in {w["id"] for w in s.wrong_claims}


def test_only_the_guides_case_rebuts_the_claim_before_it():
    text = "One element per thread is only the guide's 256-element, 8-warp case; a smaller block duplicates elements."
    assert "one-element-per-thread" not in {w["id"] for w in scoring.score("program-id-is-a-tile", text, "en").wrong_claims}
