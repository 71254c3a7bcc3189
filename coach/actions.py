"""What each CLI command does, as plain functions returning exit codes (0 ok, 1 fail, 2 usage)."""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from rich.syntax import Syntax
from rich.table import Table

import drills
from grader.reporting import report
from grader.run import runner
from grader.reporting.i18n import pick
from grader.intake.static import UnreadableFile
from grader.reporting.texts import drill_texts
from coach.store import Store, atomic_write_text, drill_entry, record_grade
from coach.ui import console

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def _spec_or_usage(name: str):
    try:
        return drills.get_spec(name)
    except KeyError as e:
        console(stderr=True).print(f"drill: {e.args[0]}")
        return None


def _warn(store: Store) -> None:
    for w in dict.fromkeys(store.warnings):  # one store may be read twice: each warning once
        console(stderr=True).print(w, style="yellow")


def list_drills(lang: str) -> None:
    store = Store()
    state = store.read()
    _warn(store)
    table = Table(title="drills")
    for col in ("drill", "title", "holes", "attempts", "passes", "last"):
        table.add_column(col, no_wrap=col == "drill")  # a name you type must stay whole
    for spec in (drills.get_spec(n) for n in drills.names()):
        d = state["drills"].get(spec.name, {})
        last = d.get("last") or {}
        status = "" if not last else ("pass" if last.get("passed") else last.get("diagnosis") or "fail")
        table.add_row(spec.name, pick(drill_texts(spec.name).get("title"), lang), ", ".join(spec.holes),
                      str(d.get("attempts", 0)), str(d.get("passes", 0)), status)
    console().print(table)


def backup_path(path: Path) -> Path:
    candidate = path.with_name(path.name + ".bak")
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.bak.{n}")
        n += 1
    return candidate


def start(name: str, path: Path | None, force: bool, lang: str, bug: bool = False) -> int:
    spec = _spec_or_usage(name)
    if spec is None:
        return EXIT_USAGE
    path = Path(path) if path else Path.cwd() / f"{spec.slug}.py"
    out = console()
    if path.exists():
        if not force:
            console(stderr=True).print(f"drill: {path} exists; not overwriting it. Use another PATH, or --force "
                                       f"(the old file is kept as a .bak).")
            return EXIT_USAGE
        kept = backup_path(path)
        shutil.copy2(path, kept)
        out.print(f"kept your old file as {kept}")
    if bug:  # a complete kernel with one planted mistake (coach/bughunt); the marker goes to the state
        from coach.bughunt import catalog as bug_catalog, flow as bug_flow
        try:
            planted = bug_flow.choose_bug(spec.name)
        except (bug_catalog.CatalogError, KeyError) as e:
            console(stderr=True).print(f"drill: internal error, not your mistake: {e.args[0] if e.args else e}")
            return EXIT_USAGE
        atomic_write_text(path, planted.text)
        for w in bug_flow.record_start(path, planted):
            console(stderr=True).print(w, style="yellow")
        bug_flow.print_started(spec, path, lang)
        return EXIT_OK
    atomic_write_text(path, spec.skeleton_path.read_text(encoding="utf-8"))
    texts = drill_texts(spec.name)
    out.print(f"[bold]{pick(texts.get('title'), lang) or spec.name}[/bold]")
    out.print(pick(texts.get("task"), lang))
    out.print(f"wrote {path}  —  fill the HOLE(...)s, then: drill grade {path.name}")
    return EXIT_OK


def grade(file: Path, drill_name: str | None, device: str, as_json: bool, seed: int, timeout: float | None,
          lang: str) -> int:
    err = console(stderr=True)
    try:
        verdict = runner.grade(file, drill=drill_name, device=device, seed=seed, timeout=timeout)
    except (UnreadableFile, runner.DeviceUnavailable, KeyError) as e:
        message = str(e.args[0]) if e.args else str(e)
        if as_json:  # a machine reading stdout still gets one object
            print(json.dumps({"error": message, "passed": False, "exit_code": EXIT_USAGE}))
        err.print(f"drill: {message}")
        return EXIT_USAGE
    from coach.bughunt import flow as bug_flow

    store = Store()
    hunt = bug_flow.marker_of(store.read(), verdict)  # a bug file drill wrote (coach/bughunt), or None
    found = bug_flow.note(hunt, verdict, lang) if hunt is not None else []
    try:
        if hunt is not None:  # a bug file's grades count as bug hunts, not as drill attempts
            bug_flow.record(store, verdict)
        else:
            record_grade(store, verdict)
    except OSError as e:  # progress is a convenience: never lose a verdict over it
        err.print(f"drill: could not save progress ({e})", style="yellow")
    _warn(store)
    if as_json:
        if found:
            data = json.loads(report.verdict_json(verdict))
            data["bug_hunt"] = {"bug": hunt["bug"], "category": hunt["category"], "line": hunt["line"],
                                "note": found}
            print(json.dumps(data, indent=2, default=str))
        else:
            print(report.verdict_json(verdict))
    else:
        report.print_verdict(verdict, lang, console())
        for line in found:
            console().print(line)
    return EXIT_OK if verdict.passed else EXIT_FAIL


def hint(name: str, reset: bool, lang: str) -> int:
    spec = _spec_or_usage(name)
    if spec is None:
        return EXIT_USAGE
    from coach.bughunt import flow as bug_flow
    store = Store()
    if bug_flow.hint(store, spec.name, reset, lang):  # an open bug hunt of this drill: its hints first
        _warn(store)
        return EXIT_OK
    hints = drill_texts(spec.name).get("hints", [])
    if not hints:
        console().print(f"no hints for {spec.name}")
        return EXIT_OK
    with store.update() as state:
        d = drill_entry(state, spec.name)
        if reset:
            d["hints_seen"] = 0
        k = min(d.get("hints_seen", 0), len(hints) - 1)
        d["hints_seen"] = k + 1
    _warn(store)
    console().print(f"[bold]hint {k + 1}/{len(hints)}[/bold]  {pick(hints[k], lang)}")
    if k + 1 == len(hints):
        console().print("(that was the last one; `drill solution " + spec.name + "` shows the reference)",
                        style="dim")
    return EXIT_OK


def solution(name: str) -> int:
    spec = _spec_or_usage(name)
    if spec is None:
        return EXIT_USAGE
    text = spec.solution_path.read_text(encoding="utf-8")
    if not sys.stdout.isatty():  # `drill solution NAME > f.py`: the file byte for byte, no wrapping or styling
        sys.stdout.write(text)
        sys.stdout.flush()
        return EXIT_OK
    console().print(Syntax(text, "python", line_numbers=False, theme="ansi_dark"), soft_wrap=True)
    return EXIT_OK
