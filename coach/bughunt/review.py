"""The mock interview's code-review round: a kernel with one planted mistake is shown with line numbers; the learner
types the line number and the fix in one sentence ("16: compare with < so lane n is off").

The line is checked exactly (the answer's first number; any line of a multi-line plant counts); the sentence is
scored by the oral round's concept scoring (coach/oral/scoring.py) against the bug's rubric. Both must hold.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

import drills
from coach.bughunt import catalog, hunts
from coach.bughunt.flow import tr
from coach.oral import scoring
from grader.reporting.i18n import pick

_LINE = re.compile(r"(?<![A-Za-z0-9_.])(\d{1,4})(?![A-Za-z0-9_.])")  # 第16行 too


@dataclass
class ReviewQuestion:
    qid: str                       # review:<drill>:<bug id>
    drill: str
    planted: catalog.Planted
    text: dict                     # {en, zh}: the question
    answer: dict                   # {en, zh}: the model answer (line, what is wrong, the fix)
    rubric: list = field(default_factory=list)  # [{"point": {en, zh}}]: the line, then the fix's key points

    @property
    def bug(self) -> catalog.Bug:
        return self.planted.bug


@dataclass
class ReviewScore:
    qid: str
    passed: bool
    line: int | None               # the line the learner named (None: no number)
    line_ok: bool
    points: list                   # [{"point", "found"}]: the line first, then the rubric's
    sentence: object = None        # scoring.Score of the sentence

    @property
    def covered(self) -> list[int]:
        return [i for i, p in enumerate(self.points) if p["found"]]


def question(planted: catalog.Planted) -> ReviewQuestion:
    bug = planted.bug
    text = {lang: tr("review_question", lang, drill=planted.drill) for lang in ("en", "zh")}
    answer = {lang: tr("review_answer", lang, line=planted.line, code=" / ".join(planted.planted),
                       explain=pick(bug.explain, lang), fix=pick(bug.fix, lang)) for lang in ("en", "zh")}
    rubric = [{"point": {lang: tr("review_line_point", lang, line=planted.line) for lang in ("en", "zh")}}]
    rubric += [{"point": item.get("point") or {}} for item in bug.rubric]
    return ReviewQuestion(qid=f"review:{planted.drill}:{bug.id}", drill=planted.drill, planted=planted, text=text,
                          answer=answer, rubric=rubric)


def pick_reviews(state: dict, k: int, avoid: list[str], rng: random.Random) -> list[ReviewQuestion]:
    """K code-review questions: drills other than AVOID (the ones just coded) first, the least bug-hunted first; the
    bug of each by the same rule as `drill start --bug` (never the last one, the least-met kind)."""
    if k <= 0:
        return []
    names = [n for n in drills.names() if catalog.bugs_for(n)]
    rng.shuffle(names)
    recs = (state.get(hunts.SECTION) or {}).get("drills") or {}

    def key(n):
        rec = recs.get(n) if isinstance(recs.get(n), dict) else {}
        return (n in avoid, rec.get("started", 0) + rec.get("reviewed", 0))

    out = []
    for name in sorted(names, key=key)[:k]:
        scratch = {hunts.SECTION: {"drills": {name: dict(recs.get(name) or {})},
                                   "kinds": dict((state.get(hunts.SECTION) or {}).get("kinds") or {})}}
        bug = hunts.choose(scratch, name, rng)
        out.append(question(catalog.plant(bug, name)))
    return out


def line_of(text: str) -> int | None:
    m = _LINE.search(text or "")
    return int(m.group(1)) if m else None


def check(q: ReviewQuestion, text: str, lang: str = "en") -> ReviewScore:
    bug = q.bug
    line = line_of(text)
    line_ok = line is not None and line in q.planted.lines
    sentence = _LINE.sub(" ", text, count=1) if line is not None else text
    matcher = scoring.matcher_for(q.qid, {"rubric": bug.rubric, "need": bug.need})
    s = scoring.score_text(matcher, sentence, lang)
    points = [{"point": pick(q.rubric[0]["point"], lang), "found": line_ok}] + s.points
    return ReviewScore(qid=q.qid, passed=line_ok and s.passed, line=line, line_ok=line_ok, points=points,
                       sentence=s)


def shown(q: ReviewQuestion, lang: str) -> list[str]:
    """What the learner is shown before the question: what the kernel computes, then the kernel, numbered."""
    from grader.reporting.texts import drill_texts

    spec = drills.get_spec(q.drill)
    title = pick(drill_texts(q.drill).get("title"), lang) or q.drill
    return [f"{title}: {spec.signature}", tr("review_intro", lang)] + listing(q.planted)


def listing(planted: catalog.Planted) -> list[str]:
    """The kernel with line numbers, as the learner is shown it."""
    lines = planted.text.splitlines()
    width = len(str(len(lines)))
    return [f"{i:>{width}} | {ln}" for i, ln in enumerate(lines, start=1)]


def card_entry(q: ReviewQuestion, score: ReviewScore | None) -> dict:
    """What the scorecard keeps of a review question: the planted mistake and what the learner said."""
    return {"drill": q.drill, "planted": {"bug": q.bug.id, "line": q.planted.line, "category": q.bug.category,
                                          "code": " / ".join(q.planted.planted), "explain": q.bug.explain,
                                          "fix": q.bug.fix},
            "line_given": None if score is None else score.line,
            "line_ok": bool(score is not None and score.line_ok)}


def record(state: dict, entry: dict, now: float) -> None:
    """A review question answered in a mock: counted under the drill's bug hunts (reviewed, review_passes), and the
    kind met; the last bug, so the next `start --bug` avoids it."""
    rec = hunts.drill_record(state, entry["drill"])
    rec["reviewed"] = int(rec.get("reviewed") or 0) + 1
    rec["review_passes"] = int(rec.get("review_passes") or 0) + int(bool(entry.get("passed")))
    bug = entry["planted"]["bug"]
    rec["met"][bug] = rec["met"].get(bug, 0) + 1
    rec["last_bug"] = bug
    kinds = hunts.section(state)["kinds"]
    kinds[entry["planted"]["category"]] = kinds.get(entry["planted"]["category"], 0) + 1


def render_result(say, q, lang: str) -> None:
    """After a review answer: right or not, the line, the fix's points, then the planted mistake (the model answer)."""
    rq, score = q.review, q.score
    if score is not None:
        if score.passed:
            say(tr("review_right", lang), style="green")
        elif score.line is None:
            say(tr("review_no_line", lang, line=rq.planted.line), style="red")
        elif not score.line_ok:
            say(tr("review_wrong_line", lang, line=rq.planted.line, given=score.line), style="red")
        else:
            say(tr("review_fix_missing", lang), style="red")
        for p in score.points:
            say(f"  {'✓' if p['found'] else '✗'} {p['point']}")
    say(pick(rq.answer, lang))


def scorecard_table(card: dict, lang: str):
    """The scorecard's table of planted mistakes (None when the mock had no code review)."""
    from rich.table import Table

    rows = [o for o in card.get("oral", []) if o.get("kind") == "review" and o.get("planted")]
    if not rows:
        return None
    t = Table(title=tr("review_table", lang))
    for col in pick((_texts().get("review_cols")), lang):
        t.add_column(col)
    for o in rows:
        p = o["planted"]
        given = "-" if o.get("line_given") is None else str(o["line_given"])
        t.add_row(o.get("drill", ""), str(p["line"]), given + (" ✓" if o.get("line_ok") else ""), p["category"],
                  pick(p.get("explain"), lang))
    return t


def _texts() -> dict:
    from grader.reporting.texts import load
    return load().get("bug_hunt") or {}
