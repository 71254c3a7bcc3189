"""`drill bench`: the command body (exit codes: 0 done, 1 the sweep failed, 2 usage / no GPU)."""
from __future__ import annotations

import json
from pathlib import Path

from rich import box
from rich.table import Table

from grader.speed import bench
from grader.run import proc
from grader.reporting.i18n import pick
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
            raise ValueError(f"shapes of {rank} numbers")
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
        example = "a list like 4096,65536 or a range like 2^12..2^24" if isinstance(spec.sizes[0], int) else \
            "shapes like " + ",".join("x".join(map(str, sh)) for sh in bench.default_sizes(spec)[:2])
        raise fail({"en": f"--sizes {sizes!r}: {spec.name} takes {example}",
                    "zh": f"--sizes {sizes!r}：{spec.name} 需要 {example}"}) from None
    if static.holes:
        line = static.holes[0]["line"]
        raise fail({"en": f"{file} still has HOLE(...)s (line {line}); fill them first",
                    "zh": f"{file} 还有没填的 HOLE(...)（第 {line} 行）；先填好"})
    if not proc.cuda_available():
        raise fail(bench.NOT_ON_CPU)
    with working(f"drill bench {Path(file).name}", lang, f"{len(size_list)} sizes on the GPU"):
        result = bench.sweep(Path(file).resolve(), spec.name, size_list)
    if as_json:
        print(json.dumps(result, indent=2))
    elif result.get("rows"):
        print_tables(result, spec.name, lang)
    if result.get("error"):
        if as_json:
            return 1  # the object above carries the error
        err.print(f"drill: bench stopped: {result['error']}", markup=False, highlight=False)
        return 1
    if plot_path:
        problem = bench.plot(result, Path(plot_path))
        if problem:
            err.print(f"drill: no plot: {problem}", style="yellow")
        else:
            console().print(f"wrote {plot_path}")
    return 0


def print_tables(result: dict, drill: str, lang: str) -> None:
    """The sweep as two tables that fit 80 columns when piped (numbers are never cut), then what the columns mean."""
    out = console()
    out.print(f"{drill} on {result.get('device_name', 'GPU')}", style="bold", markup=False, highlight=False)
    for size, errors in ((r.get("label") or f"{r['n']:,}", r.get("errors") or {}) for r in result["rows"]):
        for name, message in errors.items():  # a reference that could not run there (out of memory, a compile)
            out.print(f"  {name} at {size}: {message}", style="yellow", markup=False, highlight=False)
    for caption, head, rows in bench.tables(result):
        table = Table(title=caption, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False)
        for h in head:
            table.add_column(h, justify="right", no_wrap=True)
        for r in rows:
            table.add_row(*r)
        out.print(table)
    if any(r.get("wrong") for r in result["rows"]):
        out.print(pick({"en": "✗ = your output differed from the float64 reference at that size",
                        "zh": "✗ = 该尺寸下你的输出与 float64 参考结果不一致"}, lang), style="red")
    if any(r.get("wrong", 0) is None for r in result["rows"]):
        out.print(pick({"en": "? = not checked at that size: the float64 reference did not fit in GPU memory",
                        "zh": "? = 该尺寸未检查：float64 参考结果放不进显存"}, lang), style="yellow")
    if result.get("dynamic_compiles_at"):
        at = ", ".join(f"{n:,}" for n in result["dynamic_compiles_at"])
        out.print(pick({"en": f"compile† compiled at n = {at}", "zh": f"compile† 在 n = {at} 时编译"}, lang),
                  style="dim", markup=False, highlight=False)
    for line in bench.legend(result, lang):
        out.print(line, style="dim", markup=False, highlight=False)
