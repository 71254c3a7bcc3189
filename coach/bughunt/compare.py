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
        kind = "intended" if restores_intended(marker, planted, b) else "other"
    return {"kind": kind, "yours": yours, "others": sorted(set(others))}


def restores_intended(marker: dict, planted: list[str], graded: list[str]) -> bool:
    """The graded file holds the intended lines where the planted ones were (normalised `graded`): the planted file
    with its planted lines put back as the reference had them, diffed against the graded file, differs nowhere at or
    next to those lines. A planted line the patch added (an inserted print) or one it took away (a deleted max
    subtraction) counts as restored when the graded file reads as the reference there, which comparing the changed
    lines alone cannot see. `blocks` ([first, last, intended lines] per edited place) is in markers written since
    a bug could edit more than one place; an older marker is one block."""
    lines = marker.get("lines") or [marker["line"]]
    blocks = marker.get("blocks")
    if not (isinstance(blocks, list) and blocks and all(
            isinstance(b, list) and len(b) == 3 and isinstance(b[0], int) and isinstance(b[1], int)
            and isinstance(b[2], list) for b in blocks)):  # an older marker, or a state file edited by hand
        blocks = [[min(lines), max(lines), marker.get("intended") or []]]
    want, spans, at = [], [], 1  # `want`: the planted file with every block put back; spans: 1-based lines in it
    for first, last, intended in sorted(blocks, key=lambda b: b[0]):
        want += [norm(x) for x in planted[at - 1:first - 1]]
        spans.append((len(want) + 1, len(want) + len(intended)))
        want += [norm(x) for x in intended]
        at = last + 1
    want += [norm(x) for x in planted[at - 1:]]
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(a=want, b=graded, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        for first, last in spans:
            if i1 + 1 <= last and i2 >= first or (i1 == i2 and first <= i1 + 1 <= last + 1):
                return False
    return True
