"""`drill grade --watch FILE`: grade, then grade again on every save (mtime polling) or on Enter; Ctrl-C stops.

No file-watching dependency: the file's (mtime, size) is polled twenty times a second (a stat call each), and a change
is graded once the stamp has held still for SETTLE_S (an editor's write is then complete). Grades run in forks of
a warm worker (grader.run.worker: torch and Triton are imported once, not per save). Ctrl-C exits 130, saying the last
grade's exit code; SIGTERM/SIGHUP (grader.run.proc.Terminated) end the worker on the way out.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable

from coach.mock.interview import EOF, file_stamp
from coach.ui import console
from grader.core import catalog

POLL_S = 0.05
SETTLE_S = 0.02

T = catalog.section("coach.watch")  # texts.yaml


def tr(key, lang, **kw):
    return T[key][lang].format(**kw)


def watch(path: Path, run_once: Callable[[], int], source, lang: str = "en",
          stamp: Callable = file_stamp, clear: Callable | None = None, say: Callable | None = None,
          poll_s: float = POLL_S, settle: Callable | None = None) -> int:
    """Loop until Ctrl-C (KeyboardInterrupt), then return 130 (the last grade's exit code is said).

    run_once grades and prints (returns its exit code); source.poll(timeout) gives a line, None, or EOF (a closed
    stdin only disables Enter: saves still re-grade).
    """
    path = Path(path)
    say = say or (lambda text: console().print(text, style="dim", markup=False, highlight=False))
    clear = clear or (lambda: None)
    settle = settle or (lambda: None)
    code = None
    seen = None

    def once():
        nonlocal code, seen
        seen = stamp(path)
        clear()
        say(tr("watching", lang, file=path.name))
        code = run_once()

    try:
        once()
        while True:
            line = source.poll(poll_s)  # a closed stdin (EOF) only disables Enter
            now = stamp(path)
            if line is not None and line is not EOF:
                once()
            elif now is not None and now != seen:
                while True:  # let the editor finish writing: grade a stamp that held still for a moment
                    settle()
                    later = stamp(path)
                    if later == now or later is None:
                        break
                    now = later
                once()
            elif now is None and seen is not None:
                seen = None
                say(tr("missing", lang, file=path.name))
    except KeyboardInterrupt:  # Ctrl-C ends the watch: 130, as everywhere; the last grade's code is said
        say(tr("stopped", lang, code=2 if code is None else code))
        return 130


def watch_cli(file: Path, grade_once: Callable[[], int], lang: str) -> int:
    import time

    from grader.run import worker

    from coach.mock.tui import StdinInput

    out = console()
    tty = sys.stdout.isatty()

    def clear():
        if tty:
            out.clear()
        else:
            out.print("─" * 40, markup=False)

    try:
        source = StdinInput()
    except (OSError, ValueError):  # no stdin at all
        source = _NoInput()
    with worker.warm():  # ended on the way out, whatever ends the watch
        return watch(Path(file), grade_once, source, lang=lang, clear=clear, settle=lambda: time.sleep(SETTLE_S))


class _NoInput:
    def poll(self, timeout):
        import time
        time.sleep(timeout)
        return EOF
