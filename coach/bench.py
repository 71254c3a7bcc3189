"""`drill bench`: the command body (exit codes: 0 done, 1 the sweep failed, 2 usage / no GPU)."""
from __future__ import annotations

import json
from pathlib import Path

from rich import box
from rich.table import Table

from grader.speed import bench
from grader.run import proc
from grader.intake.static import UnreadableFile, inspect_file
from drills import get_spec
from coach import names
from coach.errors import DrillError
from grader.core import catalog
from coach.status import working
from coach.ui import console


def parse_sizes(text: str | None, spec=None) -> list:
    """'4096,65536' or '2^12..2^20' (powers of two, inclusive) -> sizes; for a drill whose sizes are shapes,
    '1024x1024x1024,4096x4096x512' -> shapes of the drill's rank. None -> the drill's default sweep."""
    if not text:
        return bench.default_sizes(spec) if spec is not None else list(bench.DEFAULT_SIZES)
    text = text.replace(" ", "")
    if spec is not None and not isinstance(spec.sizes[0], int):
        rank = len(spec.sizes[0])
        shapes = [tuple(int(d) for d in part.replace("×", "x").split("x")) for part in text.split(",") if part]
        if not shapes or any(len(sh) != rank or min(sh) < 1 for sh in shapes):
            raise ValueError(text)  # not shapes of the drill's rank: the caller says so (coach.bench.bad_sizes)
        return shapes
    if ".." in text:
        lo, hi = (int(p.split("^")[1]) if "^" in p else int(p).bit_length() - 1 for p in text.split(".."))
        return [2 ** i for i in range(lo, hi + 1)]
    return [int(float(p)) for p in text.split(",") if p]


def run(file: Path, drill_name: str | None, sizes: str | None, plot_path: Path | None, as_json: bool,
        lang: str) -> int:
    """Every refusal is a DrillError: one line, and under --json the same error object as `drill grade --json`."""
    err = console(stderr=True)

    def fail(texts, code: int = 2):
        return DrillError(texts, code=code, lang=lang, as_json=as_json)

    try:
        static = inspect_file(Path(file))
    except UnreadableFile as e:
        raise fail(e.texts) from None
    name = drill_name or static.drill
    if not name:
        raise fail(catalog.both("usage.no_drill_line"))
    spec = get_spec(names.resolve(name, lang, as_json))
    try:
        size_list = parse_sizes(sizes, spec)
    except (ValueError, IndexError):
        shapes = ",".join("x".join(map(str, sh)) for sh in bench.default_sizes(spec)[:2]) \
            if not isinstance(spec.sizes[0], int) else ""
        raise fail({lg: catalog.text("coach.bench.bad_sizes", lg, sizes=repr(sizes), drill=spec.name,
                                     example=catalog.text("coach.bench.sizes_example_shapes", lg, shapes=shapes)
                                     if shapes else catalog.text("coach.bench.sizes_example_list", lg))
                    for lg in catalog.LANGS}) from None
    if static.holes:
        line = static.holes[0]["line"]
        raise fail(catalog.both("coach.bench.holes_left", file=file, line=line))
    if not proc.cuda_available():
        raise fail(catalog.both("coach.bench.no_gpu"))
    with working(catalog.text("coach.bench.working_head", lang, file=Path(file).name), lang,
                 catalog.text("coach.bench.working_detail", lang, n=len(size_list))):
        result = bench.sweep(Path(file).resolve(), spec.name, size_list)
    if as_json:
        print(json.dumps(result, indent=2))
    elif result.get("rows"):
        print_tables(result, spec.name, lang)
    if result.get("error"):
        if as_json:
            return 1  # the object above carries the error
        err.print(catalog.text("coach.bench.stopped", lang, why=result['error']), markup=False, highlight=False)
        return 1
    if plot_path:
        problem = bench.plot(result, Path(plot_path))
        if problem:
            err.print(catalog.text("coach.bench.no_plot", lang, why=problem), style="yellow")
        else:
            console().print(catalog.text("coach.bench.wrote", lang, path=plot_path))
    return 0


def print_tables(result: dict, drill: str, lang: str) -> None:
    """The sweep as two tables that fit 80 columns when piped (numbers are never cut), then what the columns mean."""
    out = console()
    out.print(catalog.text("coach.bench.title", lang, drill=drill, device=result.get('device_name', 'GPU')),
              style="bold", markup=False, highlight=False)
    for size, errors in ((r.get("label") or f"{r['n']:,}", r.get("errors") or {}) for r in result["rows"]):
        for name, message in errors.items():  # a reference that could not run there (out of memory, a compile)
            out.print(catalog.text("coach.bench.reference_failed", lang, name=name, size=size, message=message),
                      style="yellow", markup=False, highlight=False)
    for caption, head, rows in bench.tables(result, lang):
        table = Table(title=caption, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False)
        for h in head:
            table.add_column(h, justify="right", no_wrap=True)
        for r in rows:
            table.add_row(*r)
        out.print(table)
    if any(r.get("wrong") for r in result["rows"]):
        out.print(catalog.text("coach.bench.legend_wrong", lang), style="red")
    if any(r.get("wrong", 0) is None for r in result["rows"]):
        out.print(catalog.text("coach.bench.legend_unchecked", lang), style="yellow")
    if result.get("dynamic_compiles_at"):
        at = ", ".join(f"{n:,}" for n in result["dynamic_compiles_at"])
        out.print(catalog.text("coach.bench.compiled_at", lang, at=at), style="dim", markup=False, highlight=False)
    for line in bench.legend(result, lang):
        out.print(line, style="dim", markup=False, highlight=False)
