"""The oral corpus (tests/oral/*.yaml, tests/oral/holdout/*.yaml): answers as candidates say them, accepted or not.

tests/oral/*.yaml was written before the matchers and the matchers were then adjusted with general synonyms;
tests/oral/holdout/*.yaml was written after, in other voices, and never used to adjust anything: its rates are the
honest estimate. docs/oral.md records both (`python tests/test_checkpoints_corpus.py` prints them)."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from coach import scoring
from grader.texts import checkpoints

ORAL = Path(__file__).parent / "oral"
LANGS = ("en", "zh")
GOAL_RIGHT, GOAL_WRONG = 0.95, 0.05  # at least 95 % of right answers pass, at most 5 % of wrong ones


def load(folder: Path) -> dict:
    return {p.stem: yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.yaml"))}


def rates(corpus: dict) -> dict:
    """{'right': (passed, total), 'wrong': (passed, total), 'misses': [(cid, lang, kind, answer)]}."""
    out = {"right": [0, 0], "wrong": [0, 0], "misses": []}
    for cid, data in corpus.items():
        for lang in LANGS:
            for kind in ("right", "wrong"):
                for answer in (data.get(lang) or {}).get(kind) or []:
                    passed = scoring.score(cid, answer, lang).passed
                    out[kind][0] += passed
                    out[kind][1] += 1
                    if passed != (kind == "right"):
                        out["misses"].append((cid, lang, kind, answer))
    return out


def test_every_checkpoint_has_five_answers_of_each_kind_in_both_languages():
    corpus = load(ORAL)
    assert set(corpus) == set(checkpoints()), sorted(set(checkpoints()) ^ set(corpus))
    for cid, data in corpus.items():
        for lang in LANGS:
            for kind in ("right", "wrong"):
                answers = data[lang][kind]
                assert len(answers) >= 5 and len(set(answers)) == len(answers), (cid, lang, kind)


@pytest.mark.parametrize("folder", [ORAL, ORAL / "holdout"], ids=["corpus", "holdout"])
def test_rates_meet_the_goal(folder):
    corpus = load(folder)
    assert corpus, folder
    r = rates(corpus)
    right = r["right"][0] / r["right"][1]
    wrong = r["wrong"][0] / r["wrong"][1]
    misses = "\n".join(f"{c} {l} {k}: {a}" for c, l, k, a in r["misses"])
    assert right >= GOAL_RIGHT, f"{right:.1%} of right answers pass\n{misses}"
    assert wrong <= GOAL_WRONG, f"{wrong:.1%} of wrong answers pass\n{misses}"


def test_holdout_answers_are_not_in_the_tuning_corpus():
    tuning = {a for d in load(ORAL).values() for lang in LANGS for k in ("right", "wrong") for a in d[lang][k]}
    for cid, d in load(ORAL / "holdout").items():
        assert cid in checkpoints(), cid
        for lang in LANGS:
            for kind in ("right", "wrong"):
                assert not tuning & set(d[lang][kind]), cid


if __name__ == "__main__":  # the figures for docs/oral.md
    for name, folder in (("corpus", ORAL), ("holdout", ORAL / "holdout")):
        r = rates(load(folder))
        print(f"{name}: right answers passing {r['right'][0]}/{r['right'][1]} "
              f"({r['right'][0] / r['right'][1]:.1%}), wrong answers passing {r['wrong'][0]}/{r['wrong'][1]} "
              f"({r['wrong'][0] / r['wrong'][1]:.1%})")
        for miss in r["misses"]:
            print("   ", *miss)
