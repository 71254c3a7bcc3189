"""Checks made on the learner's file without running it: readable, which drill, syntax, holes left."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from grader.core import catalog

DRILL_HEADER = re.compile(r"^#\s*drill:\s*([A-Za-z0-9_-]+)\s*$", re.MULTILINE)


class UnreadableFile(catalog.TextError):
    """The file cannot be graded at all (missing, a directory, not text): a usage error, exit code 2."""


@dataclass
class StaticResult:
    source: str
    drill: str | None = None
    syntax_error: dict | None = None
    holes: list[dict] = field(default_factory=list)  # {"name", "line"}


def read_source(path: Path) -> str:
    if not path.exists():
        raise UnreadableFile("usage.no_such_file", path=path)
    if not path.is_file():
        raise UnreadableFile("usage.not_a_file", path=path)
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UnreadableFile("usage.not_utf8", path=path) from None
    except OSError as e:
        raise UnreadableFile("usage.cannot_read", path=path, why=e.strerror) from None


def drill_of(source: str) -> str | None:
    m = DRILL_HEADER.search(source)
    return m.group(1) if m else None


def find_holes(tree: ast.AST) -> list[dict]:
    holes = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "HOLE":
            name = "?"
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                name = node.args[0].value.split(":")[0].strip()
            holes.append({"name": name, "line": node.lineno})
    return sorted(holes, key=lambda h: h["line"])


def inspect_file(path: Path) -> StaticResult:
    source = read_source(path)
    result = StaticResult(source=source, drill=drill_of(source))
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as e:
        result.syntax_error = {"type": "SyntaxError", "message": e.msg, "line": e.lineno, "col": e.offset}
        return result
    result.holes = find_holes(tree)
    return result


def kernel_body_line(lines: list[str], kernels: list[str], wanted) -> int | None:
    """The first line in the body of one of `kernels` (`def NAME(` ... up to the next top-level statement) for which
    `wanted(stripped_line)` holds; read as text, so the file is never run for it."""
    for kernel in kernels:
        head = f"def {kernel}("
        start = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith(head)), None)
        if start is None:
            continue
        for i in range(start + 1, len(lines)):
            if lines[i].startswith(("def ", "class ", "@")):
                break
            if wanted(lines[i].lstrip()):
                return i + 1
    return None
