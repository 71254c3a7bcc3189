"""The pass rule of an oral question in words, for the mock's review and scorecard (coach/mock): how many key points
a typed answer needs and why it passed or failed, and that an answer said aloud is self-rated, never checked."""
from __future__ import annotations

from coach.oral import scoring
from grader.core import catalog

RATING_NEEDED = 3  # the self-rating a checkpoint answer needs (coach/mock/interview.py oral_passed)

TEXT = catalog.section("coach.oral_verdict")  # texts.yaml


def review_line(score, answered: bool, lang: str) -> str:
    """Shown with the key points, before the self-rating: the rule the answer is held to."""
    if not answered or score is None:
        return TEXT["aloud"][lang].format(need=RATING_NEEDED)
    return TEXT["typed"][lang].format(rule=scoring.rule(score, lang), need=RATING_NEEDED)


def entry_rule(score, answered: bool, rating: int | None) -> dict:
    """The scorecard's `rule` of a checkpoint question, both languages: why it passed or failed, in a few words."""
    return {lang: _short(score, answered, rating, lang) for lang in ("en", "zh")}


def _short(score, answered: bool, rating: int | None, lang: str) -> str:
    r = TEXT["unrated"][lang] if rating is None else f"{rating}/5"
    if not answered or score is None:
        return TEXT["short_aloud"][lang].format(r=r)
    n, c = len(score.points), len(score.covered)
    if score.wrong_claims:
        return TEXT["short_wrong"][lang]
    if score.missing_required:
        return TEXT["short_required"][lang]
    if c < score.need:
        return TEXT["short_few"][lang].format(c=c, n=n, need=score.need)
    if rating is None or rating < RATING_NEEDED:
        return TEXT["short_rating"][lang].format(c=c, n=n, r=r, need=RATING_NEEDED)
    return TEXT["short_ok"][lang].format(c=c, n=n, need=score.need, r=r)
