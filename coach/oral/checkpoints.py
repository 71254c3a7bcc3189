"""`drill checkpoints [DRILL|ID] [--answer TEXT]`: the spoken-answer checkpoints (question, model answer, key points,
traps) from prompts.yaml, and the scoring of one typed answer (coach/oral/scoring.py)."""
from __future__ import annotations

import json
import sys

from rich.markup import escape

import drills
from grader.reporting.i18n import pick
from grader.reporting.texts import checkpoints, checkpoints_for, load
from coach.oral import scoring
from coach.ui import console
from grader.core import catalog

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3

LABELS = catalog.section("coach.checkpoints_labels")  # texts.yaml


def known_drills() -> list[str]:
    """Drills with a spec, then any that only have texts in prompts.yaml so far."""
    names = list(drills.names())
    return names + [n for n in load().get("drills", {}) if n not in names]


def select(name: str | None) -> list[tuple[str, dict]] | None:
    """All checkpoints (in file order), those of drill NAME in the drill's order, or the one with id NAME; None for
    a name that is neither."""
    table = checkpoints()
    if name is None:
        return list(table.items())
    if name in known_drills():
        return checkpoints_for(name)
    if name in table:
        return [(name, table[name])]
    return None


def claim_texts(cp: dict, lang: str) -> list[str]:
    table = scoring.claims()
    out = []
    for entry in cp.get("wrong") or []:
        data = table.get(entry) if isinstance(entry, str) else entry
        if data:
            out.append(pick(data.get("claim"), lang))
    return out


def render(cid: str, cp: dict, lang: str, index: int, total: int) -> None:
    out = console()
    out.rule(f"[bold]{index}/{total}  {escape(cid)}[/bold]", align="left")
    out.print(f"[bold]{LABELS['question'][lang]}[/bold]  {escape(pick(cp.get('question'), lang))}")
    out.print(f"[bold]{LABELS['answer'][lang]}[/bold]")
    out.print(escape(pick(cp.get("answer"), lang)))
    out.print(f"[bold]{LABELS['rubric'][lang]}[/bold]")
    for item in cp.get("rubric", []):
        out.print(f"  • {escape(pick(item.get('point'), lang))}")
    traps = claim_texts(cp, lang)
    if traps:
        out.print(f"[bold]{LABELS['traps'][lang]}[/bold]")
        for t in traps:
            out.print(f"  ✗ {escape(t)}", style="dim")
    src = cp.get("source")
    if src:
        out.print(f"[dim]{LABELS['source'][lang]}: {escape(str(src.get('guide', '')))} — "
                  f"{escape(str(src.get('section', '')))}[/dim]")
    out.print()


def as_data(cid: str, cp: dict, lang: str) -> dict:
    return {"id": cid, "question": pick(cp.get("question"), lang), "answer": pick(cp.get("answer"), lang),
            "points": [pick(i.get("point"), lang) for i in cp.get("rubric", [])], "traps": claim_texts(cp, lang)}


def show(name: str | None, lang: str, as_json: bool = False) -> int:
    items = select(name)
    if items is None:
        console(stderr=True).print(LABELS["unknown"][lang].format(name=name, known=", ".join(known_drills())),
                                   markup=False)
        return EXIT_USAGE
    if as_json:
        print(json.dumps([as_data(cid, cp, lang) for cid, cp in items], ensure_ascii=False, indent=1))
        return EXIT_OK
    if not items:
        console().print(LABELS["none"][lang].format(name=name))
        return EXIT_OK
    console().print(LABELS["heading"][lang].format(n=len(items)))
    for i, (cid, cp) in enumerate(items, 1):
        render(cid, cp, lang, i, len(items))
    return EXIT_OK


def print_score(s: scoring.Score, lang: str) -> None:
    out = console()
    n, c = len(s.points), len(s.covered)
    if s.passed:
        out.print(LABELS["passed"][lang].format(c=c, n=n), style="green", markup=False)
    elif s.wrong_claims:
        out.print(LABELS["failed_wrong"][lang], style="red", markup=False)
    else:
        out.print(LABELS["failed_points"][lang].format(c=c, n=n, need=s.need), style="red", markup=False)
    out.print(LABELS["rule"][lang].format(rule=scoring.rule(s, lang)), markup=False)
    for p in s.points:
        mark = " " + LABELS["denied"][lang] if p.get("denied") else ""
        out.print(f"  {'✓' if p['found'] else '✗'} {p['point']}{mark}", markup=False)
    for w in s.wrong_claims:
        out.print(LABELS["wrong"][lang].format(claim=w["claim"]), style="red", markup=False)
        out.print(LABELS["you_said"][lang].format(quote=w["quote"]), style="dim", markup=False)
        out.print(LABELS["why"][lang].format(why=w["why"]), markup=False)


def score_answer(cid: str | None, answer: str, lang: str, as_json: bool = False) -> int:
    """Score one typed answer: exit 0 when it passes, 1 when not, 2 when CID is not a checkpoint id, 3 when drill
    itself cannot score it. Without jieba a Chinese answer is scored with the fallback segmenter, and that is said."""
    if cid not in checkpoints():
        console(stderr=True).print(LABELS["need_id"][lang].format(name=cid), markup=False)
        return EXIT_USAGE
    if answer == "-":
        answer = sys.stdin.read()
    try:
        s = scoring.score(cid, answer, lang)
    except scoring.T.SegmenterMissing as e:  # drill's install, not the answer: no verdict is shown
        console(stderr=True).print(str(e), markup=False, soft_wrap=True)
        return EXIT_INTERNAL
    if s.segmenter == "fallback":  # drill's install: said, and the verdict still shown (docs/oral.md measures it)
        console(stderr=True).print(LABELS["fallback"][lang], markup=False, soft_wrap=True)
    if as_json:
        print(json.dumps(s.to_json(lang), ensure_ascii=False))
    else:
        print_score(s, lang)
    return EXIT_OK if s.passed else EXIT_FAIL
