"""The catalog of planted mistakes: drills/bugs/<solution stem>.yaml, one file per reference solution.

A bug is a named patch of the reference (`find` occurs exactly once; `replace` takes its place), with the category
the grader must give the patched file (one of grader.judge.diagnose.CATEGORIES, or for a compile lab one of
grader.families.compiled.ORDER), the part of the kernel it is in and an explanation and the intended fix in English
and Chinese. Drills that share a solution (offsets, mask, grid and vector-add share vector_add.py) draw the bugs
whose `hole` is one of theirs; a bug without `hole` is every such drill's. `also_ok` names another category that names the same mistake (as tests/submissions' `# also-ok:` lines).
`also` holds further find/replace edits of the same mistake where one edit cannot plant it (a race needs the shared
buffer zeroed in the wrapper and the load-add-store in the kernel); the main edit's line is the one hints point at,
and every edited line is a planted line.

`plant(bug, drill)` writes the file a learner gets: the patched reference without its comments and docstrings (they
explain the correct code and would point at the change), headed `# drill: NAME`. The planted line is where the
replacement lands in that file.
"""
from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import drills
from grader.core import yamlfile
from grader.core.spec import ROOT

BUGS = ROOT / "drills" / "bugs"


class CatalogError(Exception):
    """A bug that no longer applies to today's reference (its `find` is gone or not unique): drill's fault."""


@dataclass(frozen=True)
class Bug:
    id: str                      # unique within its file, e.g. "mask-le"
    solution: str                # file name in solutions/
    category: str                # what the grader must say about the planted file
    find: str
    replace: str
    part: dict                   # {en, zh}: which part of the kernel (the first hint)
    explain: dict                # {en, zh}: what is wrong, in one line
    fix: dict                    # {en, zh}: the intended fix, in one line
    rubric: list                 # the fix sentence's key points, as an oral checkpoint's rubric (coach/oral/scoring.py)
    hole: str | None = None      # drills sharing a solution: which of them draw it (None: all)
    need: int | None = None      # key points a fix sentence must show (default: half, rounded up)
    also_ok: tuple = ()          # another category that names the same mistake (as tests/submissions' `also-ok`)
    also: tuple = ()             # further ((find, replace), ...) edits of the same mistake, elsewhere in the file

    @property
    def key(self) -> str:
        return f"{Path(self.solution).stem}:{self.id}"


@dataclass(frozen=True)
class Planted:
    bug: Bug
    drill: str
    text: str                    # the whole file the learner gets
    line: int                    # first line of the replacement in `text`
    lines: tuple                 # every line of the replacement (any of them is the planted line)
    intended: tuple              # the reference's lines that the replacement took the place of, cleaned
    planted: tuple               # the planted lines themselves, as in `text`
    blocks: tuple = ()           # ((first, last, intended lines), ...): each edited place of `text`, main edit first

    def code(self, n: int | None = None) -> str:
        return self.text.splitlines()[(n or self.line) - 1].strip()


def _files() -> list[Path]:
    return sorted(BUGS.glob("*.yaml"))


@lru_cache(maxsize=None)
def load_file(path: Path) -> tuple:
    data = yamlfile.load(path) or {}
    solution = data.get("solution") or f"{path.stem}.py"
    out = []
    for b in data.get("bugs") or []:
        out.append(Bug(id=b["id"], solution=solution, category=b["category"], find=b["find"],
                       replace=b["replace"], part=b.get("part") or {}, explain=b.get("explain") or {},
                       fix=b.get("fix") or {}, rubric=b.get("rubric") or [], hole=b.get("hole"), need=b.get("need"),
                       also_ok=tuple(b.get("also_ok") or ()),
                       also=tuple((e["find"], e["replace"]) for e in b.get("also") or ())))
    return tuple(out)


def all_bugs() -> list[Bug]:
    return [b for p in _files() for b in load_file(p)]


def bugs_for(drill: str) -> list[Bug]:
    """The bugs drill NAME can draw (KeyError for an unknown drill)."""
    spec = drills.get_spec(drill)
    return [b for b in all_bugs() if b.solution == spec.solution_path.name and (b.hole is None or b.hole in spec.holes)]


def drills_for(bug: Bug) -> list[str]:
    return [n for n in drills.names() if bug in bugs_for(n)]


def find(drill: str, bug_id: str) -> Bug | None:
    return next((b for b in bugs_for(drill) if b.id == bug_id), None)


# ------------------------------------------------------------------------------------------------ the written file

def _docstring_lines(tree: ast.AST) -> set:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                out.update(range(first.lineno, first.end_lineno + 1))
    return out


def clean(source: str) -> tuple[list[str], dict]:
    """The source without comments, docstrings and runs of blank lines: (lines, {old line number: new line number})."""
    lines = source.splitlines()
    drop = _docstring_lines(ast.parse(source))
    cut: dict[int, int] = {}  # line -> column where its comment starts
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            cut[tok.start[0]] = tok.start[1]
    out, mapping = [], {}
    for i, text in enumerate(lines, start=1):
        if i in drop:
            continue
        if i in cut:
            text = text[:cut[i]].rstrip()
            if not text.strip():
                continue
        if not text.strip() and (not out or (len(out) >= 2 and not out[-1].strip() and not out[-2].strip())):
            continue  # at most two blank lines in a row, none at the top
        out.append(text.rstrip())
        mapping[i] = len(out)
    while out and not out[-1].strip():
        out.pop()
    return out, mapping


def _edit(text: str, find: str, replace: str, bug: Bug) -> tuple[str, int, int, int]:
    """One find/replace of TEXT: (new text, first line, last line of the replacement, lines added)."""
    n = text.count(find)
    if n != 1:
        raise CatalogError(f"bug {bug.key}: its `find` text occurs {n} times in solutions/{bug.solution} "
                           f"(must be once); update drills/bugs/{Path(bug.solution).stem}.yaml")
    at = text.index(find)
    first = text.count("\n", 0, at) + 1
    last = first + max(0, replace.rstrip("\n").count("\n"))
    return text[:at] + replace + text[at + len(find):], first, last, replace.count("\n") - find.count("\n")


def patch(reference: str, bug: Bug) -> tuple[str, int, int]:
    """The reference with the bug's edit: (text, first line, last line) of the replacement. CatalogError when the
    `find` text is not in the reference exactly once."""
    text, first, last, _ = _edit(reference, bug.find, bug.replace, bug)
    return text, first, last


def _patch_all(reference: str, bug: Bug) -> tuple[str, list]:
    """Every edit of the bug, main first: (text, [(first, last, find's first line in the reference, find's last
    line in the reference), ...]) with the first/last lines in the final text."""
    edits = [(bug.find, bug.replace)] + list(bug.also)
    text, places = reference, []
    for find, replace in edits:
        if reference.count(find) != 1:  # each `find` is text of the reference itself
            _edit(reference, find, replace, bug)
        text, first, last, added = _edit(text, find, replace, bug)
        at = reference.index(find)
        f_first = reference.count("\n", 0, at) + 1
        places = [(a + added if a > first else a, b + added if a > first else b, fa, fb) for a, b, fa, fb in places]
        places.append((first, last, f_first, f_first + max(0, find.rstrip("\n").count("\n"))))
    return text, places


def plant(bug: Bug, drill: str) -> Planted:
    spec = drills.get_spec(drill)
    reference = spec.solution_path.read_text(encoding="utf-8")
    text, places = _patch_all(reference, bug)
    try:
        lines, mapping = clean(text)
    except SyntaxError as e:
        raise CatalogError(f"bug {bug.key}: the patched solutions/{bug.solution} does not parse ({e.msg}, line "
                           f"{e.lineno}); update drills/bugs/{Path(bug.solution).stem}.yaml") from None
    ref_lines, ref_map = clean(reference)
    lines = [f"# drill: {drill}"] + lines
    blocks, planted_all, intended_all = [], [], []
    for first, last, f_first, f_last in places:
        planted = sorted({mapping[i] + 1 for i in range(first, last + 1) if i in mapping})
        if not planted:
            raise CatalogError(f"bug {bug.key}: the replacement leaves no code line")
        intended = tuple(ref_lines[ref_map[i] - 1].strip() for i in range(f_first, f_last + 1) if i in ref_map)
        blocks.append((planted[0], planted[-1], intended))
        planted_all += planted
        intended_all += intended
    body = "\n".join(lines) + "\n"
    main = blocks[0]
    return Planted(bug=bug, drill=drill, text=body, line=main[0], lines=tuple(planted_all),
                   intended=tuple(intended_all), planted=tuple(lines[n - 1].strip() for n in planted_all),
                   blocks=tuple(blocks))
