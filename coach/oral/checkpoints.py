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

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3

LABELS = {
    "question": {"en": "Question", "zh": "问题"},
    "answer": {"en": "Model answer", "zh": "参考答案"},
    "rubric": {"en": "Key points", "zh": "要点"},
    "traps": {"en": "Claims that fail this question", "zh": "答了就不通过的说法"},
    "source": {"en": "from", "zh": "出处"},
    "none": {"en": "drill {name} has no checkpoints", "zh": "练习 {name} 没有检查点"},
    "unknown": {"en": "drill: no drill or checkpoint called {name!r}; drills: {known}; `drill checkpoints` lists the "
                      "checkpoint ids",
                "zh": "drill：没有叫 {name!r} 的练习或检查点；练习：{known}；`drill checkpoints` 会列出所有检查点 id"},
    "need_id": {"en": "drill: --answer scores one checkpoint: give its id, e.g. `drill checkpoints why-mask --answer "
                      "\"...\"` ({name!r} is not a checkpoint id)",
                "zh": "drill：--answer 给单个检查点打分：请给出检查点 id，例如 `drill checkpoints why-mask --answer "
                      "\"...\"`（{name!r} 不是检查点 id）"},
    "heading": {"en": "{n} checkpoints", "zh": "共 {n} 个检查点"},
    "passed": {"en": "PASS: {c}/{n} key points, no wrong claim", "zh": "通过：覆盖 {c}/{n} 个要点，没有错误说法"},
    "failed_points": {"en": "FAIL: {c}/{n} key points (needs {need})", "zh": "未通过：覆盖 {c}/{n} 个要点（需要 {need} 个）"},
    "failed_wrong": {"en": "FAIL: a claim an interviewer would catch", "zh": "未通过：有面试官会抓住的错误说法"},
    "wrong": {"en": "Wrong: {claim}", "zh": "错误：{claim}"},
    "you_said": {"en": "  you said: “{quote}”", "zh": "  你说的是：“{quote}”"},
    "rule": {"en": "Rule: {rule}", "zh": "规则：{rule}"},
    "denied": {"en": "(denied)", "zh": "（被否定）"},
    "why": {"en": "  why: {why}", "zh": "  原因：{why}"},
    "fallback": {"en": "drill: jieba is not installed, so the Chinese was cut into words by drill's own fallback (coarser); "
                       "pip install jieba for the exact segmentation",
                 "zh": "drill：没有安装 jieba，中文用 drill 自带的备用分词（较粗）切分；pip install jieba 可得到准确分词"},
}


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
