"""How the learner's fix compares with the intended one: a line diff of the graded file against the planted file.

Pure: (marker, the graded file's lines) -> a dict the note renders. Whitespace, comments and docstrings do not count
as a change (the graded file is cleaned as the planted one was); a learner's comment is theirs to add.
"""
from __future__ import annotations

import difflib
import re


def norm(line: str) -> str:
    return re.sub(r"\s+", "", line)


def compare(marker: dict, graded_lines: list[str]) -> dict:
    """{"kind": "intended" | "other" | "elsewhere", "yours": [lines at the planted place], "others": [line numbers of
    the planted file changed away from the planted place]}."""
    from coach.bughunt.catalog import clean

    planted = marker["text"].splitlines()
    try:  # cleaning drops the `# drill:` header too: line 1 of the planted file stands for it
        graded_lines = planted[:1] + clean("\n".join(graded_lines))[0]
    except (SyntaxError, ValueError):  # a passing file parses; stay safe anyway
        pass
    a = [norm(x) for x in planted]
    b = [norm(x) for x in graded_lines]
    bug_lines = set(marker.get("lines") or [marker["line"]])
    yours, others, touched = [], [], False
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        span = set(range(i1 + 1, i2 + 1))  # 1-based lines of the planted file
        at_bug = bool(span & bug_lines) or (not span and min(bug_lines) <= i1 + 1 <= max(bug_lines) + 1)
        if at_bug:
            touched = True
            yours += [graded_lines[j].strip() for j in range(j1, j2) if graded_lines[j].strip()]
        else:
            others += sorted(span) or [i1 + 1]
    if not touched:
        kind = "elsewhere"
    else:
        mine = [norm(x) for x in yours if norm(x)]
        kind = "intended" if mine == [norm(x) for x in marker.get("intended") or [] if norm(x)] else "other"
    return {"kind": kind, "yours": yours, "others": sorted(set(others))}
