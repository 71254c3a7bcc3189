"""Which line of the learner's file is running now: the innermost frame whose code comes from that file.

Triton's interpreter runs a kernel's (rewritten) Python with the original file name and line numbers, so a hook
deep inside a tl.load finds the learner's line the same way a torch call in the wrapper does.
"""
from __future__ import annotations

import sys


def learner_line(learner_file: str) -> int | None:
    f = sys._getframe(1)
    while f is not None:
        if f.f_code.co_filename == learner_file:
            return f.f_lineno
        f = f.f_back
    return None


def learner_site(learner_file: str) -> tuple[int, ...]:
    """Every line of the learner's file on the stack, innermost first: one access site, even when a helper
    @triton.jit function holding the tl.load is called from two places (two sites)."""
    lines = []
    f = sys._getframe(1)
    while f is not None:
        if f.f_code.co_filename == learner_file:
            lines.append(f.f_lineno)
        f = f.f_back
    return tuple(lines)
