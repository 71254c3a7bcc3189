"""What each CLI command does, as plain functions returning exit codes (0 ok, 1 fail, 2 usage).

Errors a learner can reach raise coach.errors.DrillError: one line in their language, the exit code, and under
--json the same error object as every other command."""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from rich import box
from rich.markup import escape
from rich.syntax import Syntax
from rich.table import Table

import drills
from grader.reporting import report
from grader.run import runner
from grader.reporting.i18n import pick
from grader.intake.static import UnreadableFile, inspect_file
from grader.reporting.texts import drill_texts
from coach import names, path as drill_path
from coach.errors import DrillError
from coach.status import working
from coach.store import Store, atomic_write_text, drill_entry, record_grade
from coach.ui import console, say
from grader.core import catalog

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2

T = catalog.section("coach.actions")  # texts.yaml


def tr(key: str, lang: str, **kw):
    v = T[key][lang]
    return v.format(**kw) if kw else v


def _warn(store: Store) -> None:
    for w in store.warnings:
        console(stderr=True).print(w, style="yellow", markup=False, highlight=False)


def list_drills(lang: str) -> None:
    store = Store()
    state = store.read()
    _warn(store)
    table = Table(title=tr("list_title", lang), box=box.SIMPLE_HEAD, pad_edge=False)
    cols = tr("list_cols", lang)
    for col in cols:
        table.add_column(col, no_wrap=col in (cols[0], cols[1]))  # a name you type must stay whole
    for i, name in enumerate(drill_path.order(), 1):
        spec = drills.get_spec(name)
        d = state["drills"].get(spec.name, {})
        last = d.get("last") or {}
        status = "" if not last else (tr("pass", lang) if last.get("passed") else last.get("diagnosis") or "fail")
        table.add_row(str(i), spec.name, pick(drill_texts(spec.name).get("title"), lang),
                      pick(drill_path.stage(spec.name), lang),
                      str(d.get("attempts", 0)), str(d.get("passes", 0)), status)
    console().print(table)


def backup_path(path: Path) -> Path:
    candidate = path.with_name(path.name + ".bak")
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.bak.{n}")
        n += 1
    return candidate


def shown_path(path: Path) -> str:
    """PATH as the learner types it from here: relative to the working folder when inside it."""
    try:
        return str(Path(os.path.abspath(path)).relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def start(name: str, path: Path | None, force: bool, lang: str, bug: bool = False) -> int:
    spec = drills.get_spec(names.resolve(name, lang))
    path = Path(path) if path else Path.cwd() / f"{spec.slug}.py"
    out = console()
    folder = Path(os.path.abspath(path)).parent
    if not folder.is_dir():  # never create folders the learner did not ask for
        raise DrillError({k: T["no_folder"][k].format(folder=folder) for k in ("en", "zh")}, lang=lang)
    if path.exists() or path.is_symlink():
        if not force:
            raise DrillError({k: T["exists"][k].format(path=path) for k in ("en", "zh")}, lang=lang)
        if not path.is_file():
            raise DrillError({k: T["cannot_write"][k].format(path=path, why=T["not_regular"][k])
                              for k in ("en", "zh")}, lang=lang)
    text = spec.skeleton_path.read_text(encoding="utf-8")
    if bug:  # a complete kernel with one planted mistake (coach/bughunt); the marker goes to the state
        from coach.bughunt import catalog as bug_catalog, flow as bug_flow
        try:
            planted = bug_flow.choose_bug(spec.name)
        except KeyError:  # the drill's planted-mistake catalog is not written yet (hunts.choose)
            have = ", ".join(n for n in drills.names() if bug_catalog.bugs_for(n))
            raise DrillError(catalog.both("coach.common.no_bugs", drill=spec.name, have=have), lang=lang) from None
        except bug_catalog.CatalogError as e:
            raise DrillError(catalog.both("coach.actions.bug_catalog_broken", why=e.args[0] if e.args else e),
                             lang=lang) from None
        text = planted.text
    try:
        if path.exists():
            kept = backup_path(path)
            shutil.copy2(path, kept)
            out.print(tr("kept", lang, path=kept), markup=False, highlight=False)
        atomic_write_text(path, text, mode=0o666)  # what any editor would create: 0666 less the umask
    except OSError as e:
        raise DrillError({k: T["cannot_write"][k].format(path=path, why=e.strerror or e) for k in ("en", "zh")},
                         lang=lang) from None
    if bug:
        for w in bug_flow.record_start(path, planted):
            console(stderr=True).print(w, style="yellow", markup=False)
        bug_flow.print_started(spec, path, lang)
        return EXIT_OK
    texts = drill_texts(spec.name)
    out.print(f"[bold]{escape(pick(texts.get('title'), lang) or spec.name)}[/bold]")
    say(out, pick(texts.get("task"), lang))
    holes = len(inspect_file(spec.skeleton_path).holes)  # the markers in code, not the word in a docstring
    out.print(tr("wrote", lang, path=path, n=holes, grade=shown_path(path)), markup=False,
              highlight=False)
    return EXIT_OK


def show_fix_now(state: dict, v, hints: list) -> bool:
    """Progressive disclosure: the fix's code once this hole has failed before (the previous grade of the drill
    failed the same way) or once the hints reached their last (code) step."""
    d = (state.get("drills") or {}).get(v.drill) or {}
    last = d.get("last") or {}
    if last and not last.get("passed") and last.get("diagnosis") == v.diagnosis:
        return True
    return bool(hints) and d.get("hints_seen", 0) >= len(hints)


def grade(file: Path, drill_name: str | None, device: str, as_json: bool, seed: int, timeout: float | None,
          lang: str, fmt: str = "report", show_fix: bool = False) -> int:
    if drill_name:
        drill_name = names.resolve(drill_name, lang, as_json)
    try:
        with working(tr("grading", lang, file=Path(file).name), lang, catalog.text("progress.reading", lang)) as say:
            verdict = runner.grade(file, drill=drill_name, device=device, seed=seed, timeout=timeout, progress=say)
    except (UnreadableFile, runner.DeviceUnavailable, KeyError) as e:
        if isinstance(e, catalog.TextError):  # the grader's usage errors carry both languages
            raise DrillError(e.texts, lang=lang, as_json=as_json) from None
        message = str(e.args[0]) if e.args else str(e)
        if isinstance(e, KeyError) and message.startswith("unknown drill"):  # the file's `# drill:` line
            wanted = message.split("'")[1] if "'" in message else message
            raise DrillError(names.unknown_texts(wanted), lang=lang, as_json=as_json) from None
        raise DrillError(message, lang=lang, as_json=as_json) from None
    store = Store()
    state = store.read()
    reveal = show_fix or show_fix_now(state, verdict, drill_texts(verdict.drill).get("hints", []))
    from coach.bughunt import flow as bug_flow

    hunt = bug_flow.marker_of(state, verdict)  # a bug file drill wrote (coach/bughunt), or None
    found = bug_flow.note(hunt, verdict, lang) if hunt is not None else []
    # The verdict first: recording it can only add a warning, never hide what was computed.
    if as_json and found:
        data = json.loads(report.verdict_json(verdict))
        data["bug_hunt"] = {"bug": hunt["bug"], "category": hunt["category"], "line": hunt["line"], "note": found}
        print(json.dumps(data, indent=2, default=str))
    elif as_json:
        print(report.verdict_json(verdict))
    elif fmt == "gcc":
        for line in report.gcc_lines(verdict, lang):
            print(line)
    else:
        report.print_verdict(verdict, lang, console(), show_fix=reveal)
        for line in found:  # (`say` is the grade's progress callback here)
            console().print(line, markup=False, highlight=False)
    sys.stdout.flush()
    if verdict.diagnosis == "timeout" and (verdict.detail or {}).get("startup"):
        return EXIT_USAGE  # killed before the learner's code ran (a --timeout shorter than start-up): no attempt
    try:
        if verdict.graded and hunt is not None:  # a bug file's grades count as bug hunts, not as drill attempts
            bug_flow.record(store, verdict)
        elif verdict.graded:  # drill's internal error or a CPU limitation is no attempt of the learner's
            record_grade(store, verdict)
    except Exception as e:  # noqa: BLE001 - progress is a convenience: never lose a verdict over it
        console(stderr=True).print(catalog.text("coach.common.save_failed", lang, why=e), style="yellow",
                                   markup=False)
    _warn(store)
    return EXIT_OK if verdict.passed else EXIT_FAIL if verdict.graded else EXIT_USAGE


def hint(name: str, reset: bool, lang: str) -> int:
    spec = drills.get_spec(names.resolve(name, lang))
    from coach.bughunt import flow as bug_flow
    store = Store()
    if bug_flow.hint(store, spec.name, reset, lang):  # an open bug hunt of this drill: its hints first
        _warn(store)
        return EXIT_OK
    hints = drill_texts(spec.name).get("hints", [])
    if not hints:
        console().print(tr("no_hints", lang, name=spec.name))
        return EXIT_OK
    with store.update() as state:
        d = drill_entry(state, spec.name)
        if reset:
            d["hints_seen"] = 0
        k = min(d.get("hints_seen", 0), len(hints) - 1)
        d["hints_seen"] = k + 1
    _warn(store)
    say(console(), f"{tr('hint', lang, k=k + 1, n=len(hints))}  {pick(hints[k], lang)}")
    if k + 1 == len(hints):
        console().print(tr("last_hint", lang, name=spec.name), style="dim", markup=False)
    return EXIT_OK


def solution_text(spec) -> str:
    """The reference, its `# drill:` line naming the drill asked for: a family shares one solution file, and
    saving and grading what `drill solution mask` printed records the pass under mask."""
    lines = spec.solution_path.read_text(encoding="utf-8").splitlines(keepends=True)
    for i, ln in enumerate(lines[:5]):
        if ln.startswith("# drill:"):
            lines[i] = f"# drill: {spec.name}\n"
            break
    else:
        lines.insert(0, f"# drill: {spec.name}\n")
    return "".join(lines)


def solution(name: str, lang: str = "en") -> int:
    spec = drills.get_spec(names.resolve(name, lang))
    text = solution_text(spec)
    if not sys.stdout.isatty():  # `drill solution NAME > f.py`: the file byte for byte, no wrapping or styling
        sys.stdout.write(text)
        sys.stdout.flush()
        return EXIT_OK
    console().print(tr("solution_head", lang, name=spec.name, slug=spec.slug), style="dim", markup=False)
    console().print(Syntax(text, "python", line_numbers=True, theme="ansi_dark"), soft_wrap=True)
    return EXIT_OK


def next_drill(lang: str) -> int:
    """`drill next`: the first drill on the path not yet passed, and the command that starts (or grades) it."""
    store = Store()
    state = store.read()
    _warn(store)
    order = drill_path.order()
    name = drill_path.next_drill(state)
    out = console()
    if name is None:
        out.print(tr("all_passed", lang), markup=False, highlight=False)
        return EXIT_OK
    spec = drills.get_spec(name)
    passed = sum(1 for n in order if ((state["drills"].get(n) or {}).get("passes")))
    out.print(tr("next", lang, name=name, title=pick(drill_texts(name).get("title"), lang), k=order.index(name) + 1,
                 n=len(order), from_=pick(drill_path.stage(name), lang), passed=passed), markup=False,
              highlight=False)
    mine = Path.cwd() / f"{spec.slug}.py"
    out.print(tr("next_grade", lang, file=mine.name) if mine.exists() else tr("next_start", lang, name=name),
              markup=False, highlight=False)
    return EXIT_OK


CP = catalog.section("coach.actions_checkpoints")  # texts.yaml


def checkpoints(name: str | None, answer: str | None, lang: str, as_json: bool) -> int:
    """`drill checkpoints [NAME] [--answer TEXT]`: the checkpoints shown (coach.oral.checkpoints), or one typed
    answer scored there and recorded in the learner's state like a spoken one."""
    from coach.oral import checkpoints as cps
    from grader.reporting.texts import checkpoints as table

    ids = list(table())
    drill = names.match(name) if name else None
    if answer is None:
        if name is not None and drill is None and name not in ids:
            near = names.suggestions(name, list(drills.names()) + ids)
            raise DrillError({k: CP["unknown"][k].format(name=name, close=names.T["close"][k].format(
                names=names.T["or"][k].join(f"`{n}`" for n in near)) if near else "") for k in ("en", "zh")},
                lang=lang, as_json=as_json)
        return cps.show(drill or name, lang, as_json)
    if name not in ids:
        own = [cid for cid, _ in cps.checkpoints_for(drill)] if drill else []
        near = [] if own or not name else [n for n in names.suggestions(name, ids)]
        extra = {k: (CP["drill_ids"][k].format(drill=drill, ids=", ".join(own)) if own else
                     names.T["close"][k].format(names=names.T["or"][k].join(f"`{n}`" for n in near)) if near else "")
                 for k in ("en", "zh")}
        raise DrillError({k: CP["need_id"][k].format(ids=extra[k]) for k in ("en", "zh")}, lang=lang,
                         as_json=as_json)
    text = sys.stdin.read() if answer == "-" else answer
    if not text.strip():
        raise DrillError(CP["empty"], lang=lang, as_json=as_json)
    code = cps.score_answer(name, text, lang, as_json)
    from coach.oral import scoring
    from coach.store import record_answer

    store = Store()
    try:
        record_answer(store, name, scoring.score(name, text, lang))
    except Exception as e:  # noqa: BLE001 - the score was shown; recording it is a convenience
        console(stderr=True).print(catalog.text("coach.common.save_failed", lang, why=e), style="yellow",
                                   markup=False)
    _warn(store)
    return code
