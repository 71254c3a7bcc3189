"""A status line on the terminal while drill works (rich's spinner on stderr): which stage, which size, how long.
Nothing when stderr is not a terminal (a pipe, --json into a tool, tests): the line is for a person watching."""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager

from coach.ui import console
from grader.core import catalog


def translated(text: str, lang: str) -> str:
    """A stage the grading process said in English (texts.yaml `progress`), in the learner's language; a line that
    no template made (a size, a learner's name) stays as it is."""
    if lang == "en":
        return text
    return catalog.from_english("progress", text, lang) or text


class Line:
    def __init__(self, status, head: str, lang: str):
        self.status, self.head, self.lang, self.t0 = status, head, lang, time.monotonic()

    def __call__(self, *parts) -> None:
        """Update the line: the last part is the stage (a grading process's note, or drill's own words)."""
        text = str(parts[-1]) if parts else ""
        text = translated(text, self.lang)
        if self.status is not None:
            self.status.update(f"{self.head} · {text} · {time.monotonic() - self.t0:.1f} s")


@contextmanager
def working(head: str, lang: str = "en", first: str = ""):
    """`with working("grading mask.py") as say: say("size 1024")` — a spinner with the stage and the seconds."""
    err = console(stderr=True)
    if not (sys.stderr.isatty() and err.is_terminal):
        yield Line(None, head, lang)
        return
    with err.status(f"{head} · {translated(first, lang)}" if first else head, spinner="dots") as st:
        line = Line(st, head, lang)
        if first:
            line(first)
        yield line
