"""`drill checkpoints [DRILL]`: the spoken-answer checkpoints (question, model answer, rubric), from prompts.yaml."""
from __future__ import annotations

from rich.markup import escape

import drills
from grader.i18n import pick
from grader.texts import checkpoints, checkpoints_for, load
from .ui import console

EXIT_OK, EXIT_USAGE = 0, 2

LABELS = {
    "question": {"en": "Question", "zh": "问题"},
    "answer": {"en": "Model answer", "zh": "参考答案"},
    "rubric": {"en": "Key points", "zh": "要点"},
    "source": {"en": "from", "zh": "出处"},
    "none": {"en": "drill {name} has no checkpoints", "zh": "练习 {name} 没有检查点"},
    "unknown": {"en": "drill: unknown drill {name!r}; known: {known}",
                "zh": "drill：没有叫 {name!r} 的练习；已有：{known}"},
    "heading": {"en": "{n} checkpoints", "zh": "共 {n} 个检查点"},
}


def known_drills() -> list[str]:
    """Drills with a spec, then any that only have texts in prompts.yaml so far."""
    names = list(drills.names())
    return names + [n for n in load().get("drills", {}) if n not in names]


def select(drill: str | None) -> list[tuple[str, dict]] | None:
    """All checkpoints (in file order), or those of DRILL in the drill's order; None for an unknown drill."""
    if drill is None:
        return list(checkpoints().items())
    if drill not in known_drills():
        return None
    return checkpoints_for(drill)


def render(cid: str, cp: dict, lang: str, index: int, total: int) -> None:
    out = console()
    out.rule(f"[bold]{index}/{total}  {escape(cid)}[/bold]", align="left")
    out.print(f"[bold]{LABELS['question'][lang]}[/bold]  {escape(pick(cp.get('question'), lang))}")
    out.print(f"[bold]{LABELS['answer'][lang]}[/bold]")
    out.print(escape(pick(cp.get("answer"), lang)))
    out.print(f"[bold]{LABELS['rubric'][lang]}[/bold]")
    for item in cp.get("rubric", []):
        words = (item.get("keywords") or {}).get(lang) or (item.get("keywords") or {}).get("en") or []
        hint = f"  [dim]({escape(', '.join(str(w) for w in words))})[/dim]" if words else ""
        out.print(f"  • {escape(pick(item.get('point'), lang))}{hint}")
    src = cp.get("source")
    if src:
        out.print(f"[dim]{LABELS['source'][lang]}: {escape(str(src.get('guide', '')))} — "
                  f"{escape(str(src.get('section', '')))}[/dim]")
    out.print()


def show(drill: str | None, lang: str) -> int:
    items = select(drill)
    if items is None:
        console(stderr=True).print(LABELS["unknown"][lang].format(name=drill, known=", ".join(known_drills())),
                                   markup=False)
        return EXIT_USAGE
    if not items:
        console().print(LABELS["none"][lang].format(name=drill))
        return EXIT_OK
    console().print(LABELS["heading"][lang].format(n=len(items)))
    for i, (cid, cp) in enumerate(items, 1):
        render(cid, cp, lang, i, len(items))
    return EXIT_OK
