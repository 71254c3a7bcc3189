"""What the learner's own program printed during the grade, without drill's frames: shown under its own heading
whenever the verdict is not a pass (the debug prints of someone chasing a wrong value belong there)."""
from __future__ import annotations

import os
import re

import grader

DRILL_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(grader.__file__)))
# faulthandler's dump (the parent's SIGUSR1 on a timeout) and Python's traceback frames
DUMP_HEAD = re.compile(r"^(Current thread 0x|Thread 0x|Stack \(most recent call first\)|Timeout \(|Fatal Python error)")
FRAME = re.compile(r'^\s*File "([^"]+)", line \d+(,| in )')
DUMP_FRAME = re.compile(r'^\s*File "[^"]+", line \d+ in \S+$')  # faulthandler's: no comma before "in"
WARNING = re.compile(r"^(\S+\.py):\d+: \w*Warning: ")
MAX_LINES = 12


def _internal(path: str) -> bool:
    path = os.path.realpath(path) if not path.startswith("<") else path
    return path.startswith("<frozen") or path.startswith(DRILL_ROOT + os.sep) and "/tests/" not in path


def clean(output: str, learner_file: str | None = None) -> str:
    """The output less faulthandler's headers and every frame (and its source line) inside drill or the
    interpreter's frozen modules; the learner's own frames and prints stay."""
    lines, keep = output.splitlines(), []
    skip_source = False
    for ln in lines:
        if DUMP_HEAD.match(ln.strip()):
            skip_source = False
            continue
        w = WARNING.match(ln)
        if w and not (learner_file and os.path.realpath(w.group(1)) == os.path.realpath(learner_file)):
            skip_source = True  # a library's warning (Triton's knobs, torch): not the learner's output
            continue
        if DUMP_FRAME.match(ln):  # where a timeout stopped: the report's excerpt shows the learner's line
            continue
        m = FRAME.match(ln)
        if m:
            skip_source = _internal(m.group(1)) and not (learner_file and os.path.realpath(m.group(1)) ==
                                                           os.path.realpath(learner_file))
            if not skip_source:
                keep.append(ln)
            continue
        if skip_source and ln.startswith("  "):  # the source line under a dropped frame
            skip_source = False
            continue
        skip_source = False
        keep.append(ln)
    return "\n".join(squeeze(keep)).strip("\n")


def squeeze(lines: list[str]) -> list[str]:
    """A line printed many times in a row (a print in a function graded 36 times) once, with its count."""
    out, n = [], 0
    for i, ln in enumerate(lines):
        n += 1
        if i + 1 < len(lines) and lines[i + 1] == ln:
            continue
        out.append(ln if n == 1 else f"{ln}   (×{n})")
        n = 0
    return out


def tail(v, max_lines: int = MAX_LINES) -> tuple[str, int]:
    """(the last lines the learner's program printed in the first run that printed, how many lines were left out
    before them); ("", 0) when it printed nothing or the grade passed."""
    if v.passed:
        return "", 0
    for r in v.runs:
        text = clean(r.get("output") or "", v.file)
        if text.strip():
            lines = text.splitlines()
            return "\n".join(lines[-max_lines:]), max(0, len(lines) - max_lines)
    return "", 0
