"""`drill progress`: per drill and per checkpoint — attempts, passes, best times, last result, what is due."""
from __future__ import annotations

import time
from datetime import datetime

from rich import box
from rich.table import Table

import drills
from grader.reporting.texts import checkpoints
from coach.progress import schedule
from coach.store import Store
from coach.ui import console
from grader.core import catalog

T = catalog.section("coach.progress")  # texts.yaml


def tr(key, lang, **kw):
    v = T[key][lang]
    return v.format(**kw) if kw else v


def _s(x, fmt="{:.1f}") -> str:
    return "" if x is None else fmt.format(x)


def _mmss(x) -> str:
    if x is None:
        return ""
    s = int(round(x))
    return f"{s // 60}:{s % 60:02d}"


def rows(state: dict, now: float, lang: str) -> tuple[list[list[str]], list[list[str]], list[str]]:
    """The drill rows, the checkpoint rows, and the ids due now (most urgent first). Pure: tests call it."""
    drill_rows, cp_rows, due = [], [], []
    for name in drills.names():
        d = state.get("drills", {}).get(name) or {}
        last = d.get("last") or {}
        result = "" if not last else (tr("pass", lang) if last.get("passed") else (last.get("diagnosis") or "fail"))
        item = d.get("review")
        seen = bool(d.get("attempts"))
        # The same item decides the column and the due list: no review yet means new, and due now.
        when = schedule.describe_due(item, now, lang) if item is not None else tr("new", lang)
        drill_rows.append([name, str(d.get("attempts", 0)), str(d.get("passes", 0)), _s(d.get("best_s")),
                           _mmss(d.get("best_mock_s")), result, "" if item is None else str(item.get("box", 0)),
                           when])
        if item is not None and schedule.is_due(item, now):  # due: tried or asked before; never tried is new
            due.append((schedule.priority(item if seen else None, now), f"drill:{name}"))
    for cid, cp in checkpoints().items():
        c = state.get("checkpoints", {}).get(cid) or {}
        last = c.get("last") or {}
        item = c.get("review")
        seen = bool(c.get("asked"))
        n = len(cp.get("rubric") or [])
        best = "" if c.get("best_covered") is None else f"{c['best_covered']}/{n}"
        rating = "" if not last or last.get("rating") is None else f"{last['rating']}/5"
        cp_rows.append([cid, str(c.get("asked", 0)), str(c.get("passes", 0)), best, rating,
                        "" if item is None else str(item.get("box", 0)),
                        schedule.describe_due(item, now, lang) if item is not None else tr("new", lang)])
        if item is not None and schedule.is_due(item, now):
            due.append((schedule.priority(item if seen else None, now), f"checkpoint:{cid}"))
    due.sort(key=lambda x: x[0])
    return drill_rows, cp_rows, [k for _, k in due]


def show(lang: str, now: float | None = None) -> int:
    from coach.mock.tui import scorecard_tables

    now = time.time() if now is None else now
    store = Store()
    state = store.read()
    for w in store.warnings:
        console(stderr=True).print(w, style="yellow")
    out = console()
    drill_rows, cp_rows, due = rows(state, now, lang)
    for title, cols, body in ((tr("drills", lang), tr("drill_cols", lang), drill_rows),
                              (tr("cps", lang), tr("cp_cols", lang), cp_rows)):
        table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False)  # light rules: 80 columns hold every header
        for i, col in enumerate(cols):  # ids are typed back: never cut (as wide as the longest), the rest wraps
            table.add_column(col, no_wrap=(i == 0), min_width=max([len(r[0]) for r in body] + [len(col)])
                             if i == 0 else None)
        for r in body:
            table.add_row(*r)
        out.print(table)
        if title == tr("drills", lang):  # bug hunts (coach/bughunt) apart from the drills written from a skeleton
            from coach.bughunt.progress import table as bug_table
            bugs = bug_table(state, lang)
            if bugs is not None:
                out.print(bugs)
    out.print(tr("due_now", lang, items=", ".join(due)) if due else tr("nothing_due", lang))
    mocks = state.get("mocks") or []
    if mocks:
        last = mocks[-1]
        when = datetime.fromtimestamp(last.get("at", now)).strftime("%Y-%m-%d %H:%M")
        out.print(tr("mocks", lang, n=len(mocks), when=when))
        for t in scorecard_tables(last, lang):
            out.print(t)
    else:
        out.print(tr("no_mocks", lang))
    if due:
        out.print(tr("hint", lang), style="dim")
    else:
        out.print(tr("next", lang), style="dim")
    return 0
