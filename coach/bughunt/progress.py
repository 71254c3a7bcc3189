"""`drill progress`'s bug-hunt table: per drill, mistakes planted, grades, fixes, the kinds met and the last result —
kept apart from the drills written from a skeleton."""
from __future__ import annotations

from rich.table import Table

import drills
from coach.bughunt import catalog, hunts
from coach.bughunt.flow import tr


def rows(state: dict, lang: str) -> list[list[str]]:
    """One row per drill with a bug hunt. Pure: tests call it."""
    out = []
    section = state.get(hunts.SECTION)
    if not isinstance(section, dict) or not isinstance(section.get("drills"), dict):
        return out
    for name in drills.names():
        d = section["drills"].get(name)
        if not isinstance(d, dict) or not (d.get("started") or d.get("reviewed") or d.get("slow_asked")):
            continue
        met = d.get("met") if isinstance(d.get("met"), dict) else {}
        kinds = sorted({b.category for b in catalog.bugs_for(name) if b.id in met})
        history = d.get("history") if isinstance(d.get("history"), list) else []
        last = history[-1] if history and isinstance(history[-1], dict) else {}
        result = "" if not last else (tr("fixed_word", lang) if last.get("passed") else (last.get("diagnosis") or "fail"))
        out.append([name, str(d.get("started", 0)), str(d.get("graded", 0)), str(d.get("fixed", 0)),
                    f"{d.get('review_passes', 0)}/{d.get('reviewed', 0)}",
                    f"{d.get('slow_right', 0)}/{d.get('slow_asked', 0)}", ", ".join(kinds), result])
    return out


def table(state: dict, lang: str) -> Table | None:
    body = rows(state, lang)
    if not body:
        return None
    t = Table(title=tr("progress_title", lang))
    for i, col in enumerate(_cols(lang)):
        t.add_column(col, no_wrap=(i == 0))
    for r in body:
        t.add_row(*r)
    return t


def _cols(lang: str) -> list[str]:
    from grader.reporting.i18n import pick
    from grader.reporting.texts import load
    return pick((load().get("bug_hunt") or {}).get("progress_cols"), lang)
