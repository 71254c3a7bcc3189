"""The CLI's side of a bug hunt: write a bug file (`drill start NAME --bug`), count its grades apart from the drill's,
the note after it passes, and its hints. coach/actions.py calls these; the state lives in coach/bughunt/hunts.py."""
from __future__ import annotations

import random
import time
from pathlib import Path

from coach.bughunt import catalog, hunts
from coach.bughunt.compare import compare
from coach.store import Store
from coach.ui import console
from grader.reporting.i18n import pick
from grader.reporting.texts import drill_texts, load


def tr(key: str, lang: str, **kw) -> str:
    text = pick((load().get("bug_hunt") or {}).get(key), lang)
    return text.format(**kw) if kw else text


def choose_bug(drill: str, rng: random.Random | None = None) -> catalog.Planted:
    """The next planted file for DRILL (coach/bughunt/hunts.choose: never the last bug, least-met kind first).
    Raises catalog.CatalogError (drill's fault: a patch that no longer applies) or KeyError."""
    state = Store().read()
    return catalog.plant(hunts.choose(state, drill, rng), drill)


def record_start(path: Path, planted: catalog.Planted, now: float | None = None) -> list[str]:
    """The marker of a bug file just written (in the state, never in the file). Returns the store's warnings."""
    store = Store()
    with store.update() as state:
        hunts.open_hunt(state, str(Path(path).resolve()), planted, time.time() if now is None else now)
    return store.warnings


def print_started(spec, path: Path, lang: str) -> None:
    out = console()
    out.print(f"[bold]{pick(drill_texts(spec.name).get('title'), lang) or spec.name}[/bold]")
    out.print(tr("task", lang))
    out.print(tr("started", lang, path=path, drill=spec.name, name=Path(path).name), markup=False, highlight=False)


def marker_of(state: dict, verdict) -> dict | None:
    """The marker of the graded file when drill wrote it with `start --bug` (a copy), else None."""
    m = hunts.marker_for(state, str(Path(verdict.file).resolve()))
    return dict(m) if m is not None else None


def record(store: Store, verdict, now: float | None = None) -> dict | None:
    """A grade of a bug file goes to the bug hunts; None when the file is not one (record it as a drill attempt)."""
    now = time.time() if now is None else now
    with store.update() as state:
        return hunts.record_grade(state, str(Path(verdict.file).resolve()), bool(verdict.passed), verdict.diagnosis,
                                  now)


def where(marker: dict) -> str:
    """The planted line, or the first line of each edited place for a mistake planted in more than one ("49, 105")."""
    blocks = marker.get("blocks")
    if isinstance(blocks, list) and len(blocks) > 1 and all(isinstance(b, list) and b for b in blocks):
        return ", ".join(str(b[0]) for b in blocks)
    return str(marker["line"])


def note(marker: dict, verdict, lang: str) -> list[str]:
    """The lines printed after a passing grade of a bug file: which mistake, where, and the learner's fix against the
    intended one. Empty for a failing grade (the report says what is still wrong) and for a bug that is gone from
    the catalog. MARKER is as it was before this grade is recorded."""
    if not verdict.passed:
        return []
    bug = catalog.find(marker["drill"], marker["bug"])
    if bug is None:
        return []
    c = compare(marker, list(verdict.source_lines))
    lines = [tr("found", lang, line=where(marker), category=marker["category"], explain=pick(bug.explain, lang))]
    lines += [tr("planted_was", lang, code=" / ".join(marker["planted"])),
              tr("intended_is", lang, code=" / ".join(marker["intended"]))]
    if c["kind"] == "intended":
        lines.append(tr("fix_same", lang))
    elif c["kind"] == "other":
        lines += [tr("yours_is", lang, code=" / ".join(c["yours"]) or "—"), tr("fix_other", lang, fix=pick(bug.fix, lang))]
    else:
        lines.append(tr("fix_elsewhere", lang, line=where(marker), where=", ".join(map(str, c["others"])) or "—",
                        fix=pick(bug.fix, lang)))
    if c["kind"] != "elsewhere" and c["others"]:
        lines.append(tr("also_changed", lang, where=", ".join(map(str, c["others"]))))
    if not marker.get("fixed_at") and marker.get("at"):  # this grade is the one that fixes it
        minutes = max(0.0, time.time() - marker["at"]) / 60
        lines.append(tr("took", lang, grades=marker.get("graded", 0) + 1, hints=marker.get("hints_seen", 0),
                        minutes=f"{minutes:.1f}"))
    return lines


def hint(store: Store, drill: str, reset: bool, lang: str) -> bool:
    """The next hint of DRILL's open bug hunt (its latest bug file not yet fixed, still on disk): first which part of
    the kernel, then which line, then what is wrong there. False when there is none (the drill's own hints apply).
    The caller prints the store's warnings."""
    with store.update() as state:
        found = hunts.latest_open(state, drill)
        if found is None or not Path(found[0]).is_file():
            return False
        path, marker = found
        bug = catalog.find(drill, marker["bug"])
        if bug is None:
            return False
        steps = [tr("hint_part", lang, part=pick(bug.part, lang)),
                 tr("hint_line", lang, line=where(marker), code=" / ".join(marker["planted"])),
                 tr("hint_what", lang, explain=pick(bug.explain, lang))]
        if reset:
            marker["hints_seen"] = 0
        k = min(marker.get("hints_seen", 0), len(steps) - 1)
        marker["hints_seen"] = k + 1
    out = console()
    out.print(f"[bold]{tr('hint_head', lang, k=k + 1, n=len(steps), file=Path(path).name)}[/bold]  {steps[k]}")
    if k + 1 == len(steps):
        out.print(tr("hint_last", lang, drill=drill), style="dim")
    return True
