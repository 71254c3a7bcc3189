"""Issue 19, round 6's unseen half as the development set: mechanisms stated for a class and checked on answers of
several checkpoints (docs/oral.md, "round 6's unseen half"). Each known-wrong input must fail with the named reason;
each correct variant in the same words must pass."""
from __future__ import annotations

import pytest

from coach.oral import scoring


def ids(cid, text, lang="en"):
    s = scoring.score(cid, text, lang)
    return s.passed, [w["id"] for w in s.wrong_claims]


# --- a denial offered as the reason for the point ("X has no Y, so Z") is its premise, not its denial ----------------

MP_REST = {"en": " bf16 keeps fp32's exponent range; accumulate in fp32 with out_dtype.",
           "zh": " bf16 的指数和 fp32 一样；用 fp32 累加。"}


@pytest.mark.parametrize("lang,text", [
    ("en", "fp8 has no range to spare, so it needs scaling."),
    ("en", "fp8 has no headroom in its range, therefore it needs per-tensor scales."),
    ("zh", "fp8 的范围不够用，所以要按张量缩放。"),
])
def test_a_denial_followed_by_so_and_the_point_is_the_points_premise(lang, text):
    passed, wrong = ids("mixed-precision", text + MP_REST[lang], lang)
    assert passed and not wrong, wrong


@pytest.mark.parametrize("lang,text", [
    ("en", "fp8 needs no scaling."),
    ("en", "fp8 has no range problem, it needs no scaling."),
    ("zh", "fp8 不需要缩放。"),
])
def test_a_denial_of_the_point_itself_still_fails(lang, text):
    passed, wrong = ids("mixed-precision", text + MP_REST[lang], lang)
    assert not passed and "mixed-precision:denies-point-3" in wrong, wrong


def test_the_premise_rule_holds_on_another_checkpoint():
    # vector-loads: "alignment isn't required" is a denial (no consequence connective) and still fails
    passed, wrong = ids("vector-loads-int32-offsets", "128-bit loads need 4 contiguous floats per thread; the 16-byte "
                        "alignment isn't required, the hardware handles it. pid is int32, so cast it to int64.")
    assert not passed
