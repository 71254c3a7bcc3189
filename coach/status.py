"""A status line on the terminal while drill works (rich's spinner on stderr): which stage, which size, how long.
Nothing when stderr is not a terminal (a pipe, --json into a tool, tests): the line is for a person watching."""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager

from coach.ui import console

STAGES_ZH = {"importing torch and Triton": "导入 torch 和 Triton", "importing your file": "导入你的文件",
             "starting the grading process": "启动评测进程", "timing your kernel against eager": "与 eager 对比计时",
             "calling your function at size": "调用你的函数，尺寸", "seed": "种子"}


def zh(text: str) -> str:
    for en, z in STAGES_ZH.items():
        text = text.replace(en, z)
    return text


class Line:
    def __init__(self, status, head: str, lang: str):
        self.status, self.head, self.lang, self.t0 = status, head, lang, time.monotonic()

    def __call__(self, *parts) -> None:
        """Update the line: the last part is the stage (a grading process's note, or drill's own words)."""
        text = str(parts[-1]) if parts else ""
        if self.lang == "zh":
            text = zh(text)
        if self.status is not None:
            self.status.update(f"{self.head} · {text} · {time.monotonic() - self.t0:.1f} s")


@contextmanager
def working(head: str, lang: str = "en", first: str = ""):
    """`with working("grading mask.py") as say: say("size 1024")` — a spinner with the stage and the seconds."""
    err = console(stderr=True)
    if not (sys.stderr.isatty() and err.is_terminal):
        yield Line(None, head, lang)
        return
    with err.status(f"{head} · {first}" if first else head, spinner="dots") as st:
        line = Line(st, head, lang)
        if first:
            line(first)
        yield line
