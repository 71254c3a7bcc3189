"""The CLI's side of a bug hunt: write a bug file (`drill start NAME --bug`), count its grades apart from the drill's,
the note after it passes, and its hints. coach/actions.py calls these; the state lives in coach/bughunt/hunts.py."""
from __future__ import annotations

import random
import time
from pathlib import Path

from coach.bughunt import catalog, hunts
from coach.bughunt.compare import compare
from coach.store import Store, atomic_write_text
from coach.ui import console
from grader.reporting.i18n import pick
from grader.reporting.texts import drill_texts, load

EXIT_OK, EXIT_USAGE = 0, 2


def tr(key: str, lang: str, **kw) -> str:
    text = pick((load().get("bug_hunt") or {}).get(key), lang)
    return text.format(**kw) if kw else text


def start_bug(spec, path: Path, lang: str, rng: random.Random | None = None, now: float | None = None) -> int:
    """Choose the next bug for the drill, write the planted file to PATH (the caller has checked PATH may be
    written), and record the marker. A bug that no longer applies is drill's fault: said so, exit 2, no file."""
    store = Store()
    now = time.time() if now is None else now
    try:
        with store.update() as state:
            bug = hunts.choose(state, spec.name, rng)
            planted = catalog.plant(bug, spec.name)
            atomic_write_text(path, planted.text)
            hunts.open_hunt(state, str(Path(path).resolve()), planted, now)
    except (catalog.CatalogError, KeyError) as e:
        console(stderr=True).print(f"drill: internal error, not your mistake: {e.args[0] if e.args else e}")
        return EXIT_USAGE
    for w in store.warnings:
        console(stderr=True).print(w, style="yellow")
    out = console()
    out.print(f"[bold]{pick(drill_texts(spec.name).get('title'), lang) or spec.name}[/bold]")
    out.print(tr("task", lang))
    out.print(tr("started", lang, path=path, drill=spec.name, name=Path(path).name))
    return EXIT_OK


def record(store: Store, verdict, now: float | None = None) -> dict | None:
    """A grade of a bug file goes to the bug hunts; None when the file is not one (record it as a drill attempt)."""
    now = time.time() if now is None else now
    with store.update() as state:
        return hunts.record_grade(state, str(Path(verdict.file).resolve()), bool(verdict.passed), verdict.diagnosis,
                                  now)


def note(marker: dict, verdict, lang: str) -> list[str]:
    """The lines printed after a passing grade of a bug file: which mistake, where, and the learner's fix against the
    intended one. Empty for a failing grade (the report says what is still wrong) and for a bug that is gone from
    the catalog."""
    if not verdict.passed:
        return []
    bug = catalog.find(marker["drill"], marker["bug"])
    if bug is None:
        return []
    c = compare(marker, list(verdict.source_lines))
    lines = [tr("found", lang, line=marker["line"], category=marker["category"], explain=pick(bug.explain, lang))]
    lines += [tr("planted_was", lang, code=" / ".join(marker["planted"])),
              tr("intended_is", lang, code=" / ".join(marker["intended"]))]
    if c["kind"] == "intended":
        lines.append(tr("fix_same", lang))
    elif c["kind"] == "other":
        lines += [tr("yours_is", lang, code=" / ".join(c["yours"]) or "—"), tr("fix_other", lang, fix=pick(bug.fix, lang))]
    else:
        lines.append(tr("fix_elsewhere", lang, line=marker["line"], where=", ".join(map(str, c["others"])) or "—",
                        fix=pick(bug.fix, lang)))
    if c["kind"] != "elsewhere" and c["others"]:
        lines.append(tr("also_changed", lang, where=", ".join(map(str, c["others"]))))
    if marker.get("first_fix") and marker.get("at"):
        minutes = max(0.0, (marker.get("fixed_at") or time.time()) - marker["at"]) / 60
        lines.append(tr("took", lang, grades=marker.get("graded", 1), hints=marker.get("hints_seen", 0),
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
                 tr("hint_line", lang, line=marker["line"], code=" / ".join(marker["planted"])),
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
