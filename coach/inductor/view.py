"""Rendering and the command body of `drill inductor` (capture and parsing live in coach/inductor/capture.py)."""
from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

import drills
from grader.reporting.i18n import pick
from coach.inductor import capture as ind
from coach.inductor import limits as inductor_limits
from coach.inductor import template as inductor_template
from coach import names
from coach.errors import DrillError
from coach.status import working
from coach.store import Store
from coach.ui import console
from grader.core import catalog

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2

T = catalog.section("coach.inductor_view")  # texts.yaml

NOTES = catalog.section("coach.inductor_view_notes")  # texts.yaml
FX = catalog.section("coach.inductor_view_fx")  # texts.yaml
MASKED = {True: catalog.entry("coach.inductor_masked.masked"), False: catalog.entry("coach.inductor_masked.unmasked")}


def _t(key: str, lang: str, **kw) -> str:
    return T[key][lang].format(**kw)


def _fmt_s(s) -> str:
    if s is None:
        return "?"
    return f"{s * 1000:.1f} ms" if s < 1 else f"{s:.2f} s"


def note_for(piece: ind.Piece, lang: str, kernel_lang: str = "triton") -> str:
    special = inductor_template.note(piece, lang)  # a matmul's pieces (K loop, tl.dot, epilogue, ...)
    if special:
        return special
    m = pick(MASKED[piece.masked], lang) if piece.masked is not None else ""
    kind = "bound" if (piece.kind == "mask" and kernel_lang == "cpp") else piece.kind
    return pick(NOTES.get(kind, {"en": kind}), lang).format(ptr=piece.pointer or "?", m=m)


def kernel_text(kernel: ind.Kernel, lang: str, annotate: bool = True) -> Text:
    """The kernel with line numbers; with `annotate`, each piece's role after its line (`← ...`)."""
    by_line: dict = {}
    for p in kernel.pieces:
        by_line.setdefault(p.line, []).append(p)
    lines = kernel.shown.rstrip("\n").split("\n")
    width = len(str(len(lines)))
    text = Text()
    last = ""
    for n, line in enumerate(lines, start=1):
        text.append(f"{n:>{width}}  ", style="dim")
        text.append(line)
        notes = "; ".join(dict.fromkeys(note_for(p, lang, kernel.lang) for p in by_line.get(n, []))) if annotate else ""
        if notes and notes != last:  # a run of lines with the same role is annotated once, at its first line
            text.append(f"   ← {notes}", style="cyan")
        last = notes or last
        text.append("\n")
    return text


def describe_name(kernel: ind.Kernel, lang: str) -> str:
    d = ind.decode_kernel_name(kernel.name, kernel.aten_ops)
    cat = d[f"category_{lang}"] or d["category_en"] or ("C++" if d["backend"] == "cpp" else "?")
    ops = ", ".join(d["ops"]) or "?"
    fused = _t("fused_ops" if len(d["ops"]) > 1 else "one_op", lang, ops=ops)
    return _t("decoded", lang, backend=d["backend"] or "?", category=cat, fused=fused,
              index=d["index"] if d["index"] is not None else "?")


def launch_lines(capture: dict, kernel: ind.Kernel, lang: str) -> list[str]:
    out = []
    for code in capture.get("codes", []):
        out += ind.wrapper_launch_lines(code, [kernel.name])
    numel = next((p.text.split("=")[1].strip() for p in kernel.pieces if p.kind == "numel"), "?")
    seen = [l for l in capture.get("launches", []) if l.get("kernel") == kernel.name]
    tuner = next((a for a in capture.get("autotuners", []) if a.get("kernel") == kernel.name), None)
    template = inductor_template.template_launch(kernel, lang) if inductor_template.is_matmul(kernel) else None
    if template:  # a template's grid is fixed in the wrapper, from its config: no XBLOCK heuristics
        out.append(template)
        return out
    if seen:
        l = seen[-1]
        out.append(_t("launch_seen", lang, grid=tuple(l.get("grid") or ()), programs=l.get("programs"),
                      block=l.get("block"), n=l.get("meta", {}).get("xnumel", numel), count=len(seen)))
    elif tuner and tuner.get("chosen"):
        cfg = tuner["chosen"][0]
        block = cfg.get("XBLOCK")
        try:
            programs = -(-int(numel) // int(block))
        except (TypeError, ValueError):
            programs = "?"
        out.append(_t("launch_chosen", lang, cfg=", ".join(f"{k}={v}" for k, v in cfg.items()), n=numel,
                      block=block, programs=programs))
    if kernel.lang == "triton" and tuner and tuner.get("configs") and "grid_type" in kernel.source:
        configs = ", ".join(" ".join(f"{k}={v}" for k, v in c.items()) for c in tuner["configs"])
        out.append(_t("grid_note", lang, configs=configs))
    return out


def _cell(pieces: list) -> str:
    return "\n".join(f"L{p.line}  {p.text.split('#', 1)[0].strip()}" for p in pieces) or "—"


def side_by_side(kernel: ind.Kernel, other_text: str, who: str, lang: str, first_line: int = 1,
                 inductor_name: str | None = None) -> Table:
    mine = ind.kernel_pieces(other_text)
    for p in mine:
        p.line += first_line - 1  # the learner's file's own line numbers
    table = Table(title=_t("side_by_side", lang, who=who), show_lines=True)
    table.add_column("piece")
    table.add_column(f"Inductor `{inductor_name}`" if inductor_name else "Inductor", overflow="fold")
    table.add_column(who, overflow="fold")
    rows = inductor_template.ROWS if inductor_template.is_matmul(kernel) else ind.ROWS
    for row in ind.line_up(kernel.pieces, mine, rows):
        table.add_row(row["piece"], _cell(row["inductor"]), _cell(row["mine"]))
    return table


def render(capture: dict, kernels: list, lang: str, out: Console, compare: tuple | None) -> None:
    size = capture.get("size")
    out.print(f"[bold]{_t('title', lang, fn=capture.get('function_name'), drill=capture.get('drill'), size=size)}"
              "[/bold]" + catalog.text("coach.inductor_masked.versions", lang, torch=capture.get('torch'),
                                       triton=capture.get('triton')))
    path = capture.get("path")
    if path == "cuda":
        out.print(_t("path_cuda", lang, name=capture.get("device_name", "GPU")))
    elif path == "cpu-triton-interpreter":
        out.print(_t("path_interp", lang), style="dim")
    elif path == "cpu-triton-source-only":
        out.print(_t("path_source_only", lang, why=capture.get("interpreter_error") or "?"), style="yellow")
    else:
        out.print(_t("why_cpp", lang, why=capture.get("why_no_triton") or "?"), style="yellow")
    if capture.get("matches_eager") is False:
        out.print(_t("mismatch", lang, d=capture.get("max_abs_diff")), style="red")
    for k in kernels:
        out.print()
        out.rule(f"[bold]{k.name}[/bold]")
        out.print(describe_name(k, lang))
        out.print(kernel_text(k, lang))
        lines = launch_lines(capture, k, lang)
        if lines:
            out.print(f"[bold]{_t('launch', lang)}[/bold]")
            for line in lines:
                out.print("  " + line, markup=False)
    inductor_limits.render(capture, lang, out)  # a drill whose device has launch limits (e.g. the GXU)
    inductor_template.render(capture, kernels, lang, out)  # a drill with compile options (e.g. max-autotune)
    tri = [k for k in kernels if k.lang == "triton"]
    if compare and tri:
        mine, who = compare
        text, _, first = mine[0]
        if "tl.dot(" in text or len(mine) == 1 or len(tri) == 1:
            if "tl.dot(" in text:  # a matmul beside Inductor's matmul, not beside a separate epilogue kernel
                tri = [k for k in tri if inductor_template.is_matmul(k)] or tri
            out.print()
            out.print(side_by_side(tri[0], text, who, lang, first))
        else:  # several kernels on both sides (a forward and its backward): pair them (capture.pair_kernels)
            pairs = ind.pair_kernels(len(tri), len(mine))
            for i, j in pairs:
                text, name, first = mine[j]
                out.print()
                out.print(side_by_side(tri[i], text, f"{who} `{name}`", lang, first, inductor_name=tri[i].name))
            alone = [mine[j][1] for j in range(len(mine)) if j not in {j for _, j in pairs}]
            if alone:
                out.print(_t("unpaired", lang, names=", ".join(alone)), style="dim")
    out.print()
    out.print(f"[bold]{_t('timings', lang)}[/bold]" + (f"  {_t('cold_note', lang)}" if capture.get("cold_cache")
                                                        else ""))
    fx = capture.get("fx_graph_cache") or {}
    fx_s = pick(FX[("hit" if fx.get("hit") else "miss" if fx.get("miss") else "bypass" if fx.get("bypass")
                     else "unknown")], lang)
    extra = _t("interp_extra", lang) if path == "cpu-triton-interpreter" else ""
    out.print("  " + _t("first", lang, s=_fmt_s(capture.get("first_call_s")), fx=fx_s), markup=False)
    out.print("  " + _t("second", lang, s=_fmt_s(capture.get("second_call_s")), extra=extra), markup=False)
    out.print("  " + _t("eager", lang, s=_fmt_s(capture.get("eager_call_s"))), markup=False)


def quiz_kernel(kernels: list):
    tri = [k for k in kernels if k.lang == "triton" and ind.quiz_questions(k)]
    rest = [k for k in kernels if ind.quiz_questions(k)]
    return (tri or rest or [None])[0]


class InputEnded(Exception):
    """stdin closed before every question had its answer (fewer piped lines than questions)."""


def ask_line(prompt: str, lang: str, out: Console) -> str:
    """Ask until the answer is a line number (Enter alone skips the question); InputEnded when stdin closes."""
    while True:
        try:
            answer = click.prompt(prompt, default="", show_default=False)
        except click.exceptions.Abort:
            if sys.stdin is not None and not sys.stdin.isatty():  # a pipe ran dry, not a Ctrl-C
                raise InputEnded() from None
            raise
        if not answer.strip() or ind.parse_line_answer(answer) is not None:
            return answer
        out.print(_t("not_a_line", lang, answer=answer), markup=False)


def run_quiz(capture: dict, kernels: list, lang: str, out: Console, answers: list | None) -> int:
    kernel = quiz_kernel(kernels)
    if kernel is None:
        out.print(_t("no_quiz", lang))
        return EXIT_FAIL
    questions = ind.quiz_questions(kernel)
    out.print(_t("quiz_intro", lang, name=kernel.name))
    out.print(kernel_text(kernel, lang, annotate=False))
    given = {}
    if answers is not None and len(answers) > len(questions):
        raise DrillError({k: T["too_many"][k].format(k=len(answers), n=len(questions)) for k in ("en", "zh")},
                         lang=lang)
    ended = False
    for i, q in enumerate(questions):
        prompt = pick(q.prompt, lang)
        if answers is not None:
            given[q.id] = answers[i] if i < len(answers) else ""
            out.print(f"{prompt} {given[q.id]}", markup=False)
        elif not ended:
            try:
                given[q.id] = ask_line(prompt, lang, out)
            except InputEnded:
                ended = True
                out.print("")
                out.print(_t("input_ended", lang, k=i, n=len(questions)), style="yellow", markup=False)
    if answers is not None and len(answers) < len(questions):
        out.print(_t("too_few", lang, k=len(answers), n=len(questions)), style="yellow", markup=False)
    result = ind.grade_quiz(questions, given)
    for q, item in zip(questions, result["items"]):
        mark = _t("right", lang) if item["correct"] else _t("wrong", lang, lines=", ".join(map(str, q.accepted)))
        said = _t("no_answer", lang) if item["answer"] is None else item["answer"]
        out.print(f"  {'✓' if item['correct'] else '✗'} {pick(q.prompt, lang)} {said} — {mark}", markup=False)
    out.print(f"[bold]{_t('quiz_result', lang, score=result['score'], total=result['total'])}[/bold]")
    store = Store()
    try:
        ind.record_quiz(store, capture.get("drill"), kernel.name, result)
    except Exception as e:  # noqa: BLE001 - the score was shown; a state of another shape must not hide it
        console(stderr=True).print(catalog.text("coach.common.save_failed", lang, why=e), style="yellow")
    for w in store.warnings:
        console(stderr=True).print(w, style="yellow")
    return EXIT_OK if result["score"] == result["total"] else EXIT_FAIL


def device_for(device: str) -> str:
    if device != "auto":
        return device
    from grader.run.proc import cuda_available
    return "cuda" if cuda_available() else "cpu"


def command(name: str, file: Path | None, raw: bool, save: Path | None, quiz: bool, lang: str,
            device: str = "auto", backend: str = "auto", cold: bool = False, timeout: float | None = None,
            answers: list | None = None) -> int:
    """The body of `drill inductor`. Exit: 0 ok (quiz: all right), 1 compile failed (quiz: not all right), 2 usage."""
    err = console(stderr=True)
    spec = drills.get_spec(names.resolve(name, lang))
    for a in answers or []:  # before a compile of many seconds: a typo in --answers is a usage error now
        if a and ind.parse_line_answer(a) is None:
            raise DrillError({k: T["bad_answers"][k].format(answers=",".join(answers), bad=a) for k in ("en", "zh")},
                             lang=lang)
    compare = None
    if file is not None:
        try:
            source = Path(file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            err.print(catalog.text("coach.inductor_masked.cannot_read", lang, file=file, why=e))
            return EXIT_USAGE
        mine = ind.learner_kernel_sources(source)
        if not mine:
            err.print(_t("no_learner_kernel", lang, file=file))
            return EXIT_USAGE
        compare = (mine, _t("yours", lang, file=Path(file).name))
    elif spec.solution_path.exists():
        mine = ind.learner_kernel_sources(spec.solution_path.read_text(encoding="utf-8"))
        if mine:
            compare = (mine, _t("reference", lang, file=f"solutions/{spec.solution_path.name}"))

    with working(_t("compiling", lang, drill=spec.name), lang, _t("compile_stage", lang)):
        capture = ind.run_capture(spec.name, device=device_for(device), backend=backend, cold=cold,
                                  timeout=timeout or ind.DEFAULT_TIMEOUT_S)
    if capture.get("error"):
        e = capture["error"]
        err.print(_t("failed", lang, drill=spec.name, type=e.get("type"), message=e.get("message")), markup=False)
        if capture.get("output"):
            err.print(capture["output"][-1200:], markup=False, style="dim")
        return EXIT_FAIL
    kernels = [k for code in capture.get("codes", []) for k in ind.extract_kernels(code)]
    out = console()
    if save is not None:
        for p in ind.save_capture(capture, kernels, Path(save)):
            out.print(_t("saved", lang, path=p), markup=False)
    if raw:
        for code in capture.get("codes", []):
            click.echo(code)
        return EXIT_OK
    if quiz:
        return run_quiz(capture, kernels, lang, out, answers)
    render(capture, kernels, lang, out, compare)
    return EXIT_OK
