"""The pass rule of an oral question in words, for the mock's review and scorecard (coach/mock): how many key points
a typed answer needs and why it passed or failed, and that an answer said aloud is self-rated, never checked."""
from __future__ import annotations

from grader.reporting.i18n import pick
from coach.oral import scoring

RATING_NEEDED = 3  # the self-rating a checkpoint answer needs (coach/mock/interview.py oral_passed)

TEXT = {
    "aloud": {"en": "Said aloud: the tool did not check it; your self-rating decides ({need}/5 or more passes).",
              "zh": "口头回答：工具没有检查；由你的自评决定（{need}/5 及以上算通过）。"},
    "typed": {"en": "Rule: {rule}. A typed answer also needs a self-rating of {need}/5 or more.",
              "zh": "规则：{rule}。输入的回答还需要自评 {need}/5 及以上。"},
    "short_aloud": {"en": "self-rated {r}, not checked", "zh": "自评 {r}，未经检查"},
    "short_wrong": {"en": "wrong claim", "zh": "有错误说法"},
    "short_few": {"en": "{c}/{n} points, needs {need}", "zh": "{c}/{n} 个要点，需要 {need} 个"},
    "short_required": {"en": "a required point missing", "zh": "缺少必须的要点"},
    "short_rating": {"en": "{c}/{n} points; self-rating {r}, needs {need}", "zh": "{c}/{n} 个要点；自评 {r}，需要 {need}"},
    "short_ok": {"en": "{c}/{n} points (needs {need}), self-rated {r}", "zh": "{c}/{n} 个要点（需要 {need} 个），自评 {r}"},
    "unrated": {"en": "-", "zh": "-"},
}


def review_line(score, answered: bool, lang: str) -> str:
    """Shown with the key points, before the self-rating: the rule the answer is held to."""
    if not answered or score is None:
        return pick(TEXT["aloud"], lang).format(need=RATING_NEEDED)
    return pick(TEXT["typed"], lang).format(rule=scoring.rule(score, lang), need=RATING_NEEDED)


def entry_rule(score, answered: bool, rating: int | None) -> dict:
    """The scorecard's `rule` of a checkpoint question, both languages: why it passed or failed, in a few words."""
    return {lang: _short(score, answered, rating, lang) for lang in ("en", "zh")}


def _short(score, answered: bool, rating: int | None, lang: str) -> str:
    r = pick(TEXT["unrated"], lang) if rating is None else f"{rating}/5"
    if not answered or score is None:
        return pick(TEXT["short_aloud"], lang).format(r=r)
    n, c = len(score.points), len(score.covered)
    if score.wrong_claims:
        return pick(TEXT["short_wrong"], lang)
    if score.missing_required:
        return pick(TEXT["short_required"], lang)
    if c < score.need:
        return pick(TEXT["short_few"], lang).format(c=c, n=n, need=score.need)
    if rating is None or rating < RATING_NEEDED:
        return pick(TEXT["short_rating"], lang).format(c=c, n=n, r=r, need=RATING_NEEDED)
    return pick(TEXT["short_ok"], lang).format(c=c, n=n, need=score.need, r=r)
