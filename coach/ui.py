"""One place that makes the terminal console: colour off for NO_COLOR, for pipes, and for dumb terminals."""
from __future__ import annotations

import os

from rich.console import Console


def console(stderr: bool = False) -> Console:
    no_color = bool(os.environ.get("NO_COLOR")) or os.environ.get("TERM") == "dumb"
    return Console(stderr=stderr, no_color=no_color, highlight=False, soft_wrap=False)
