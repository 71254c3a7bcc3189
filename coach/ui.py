"""One place that makes the terminal console: colour off for NO_COLOR, for pipes, and for dumb terminals."""
from __future__ import annotations

import os
import re

from rich.console import Console


def console(stderr: bool = False) -> Console:
    no_color = bool(os.environ.get("NO_COLOR")) or os.environ.get("TERM") == "dumb"
    return Console(stderr=stderr, no_color=no_color, highlight=False, soft_wrap=False)


CJK = "\u2e80-\u9fff\u3000-\u303f\uff00-\uffef"
TOKENS = re.compile(f"[{CJK}]|[^\\s{CJK}]+|\\s+")
NO_LINE_START = set("，。；：！？、）》」』】…%")


def fill(text: str, width: int) -> str:
    """Wrap text that holds Chinese to `width` terminal cells: a line may break between any two Chinese characters
    (rich breaks only at spaces, which leaves Chinese lines ragged), English words stay whole, and a line never starts
    with closing punctuation (，。；：…)."""
    from rich.cells import cell_len

    out = []
    for para in text.split("\n"):
        line = ""
        for tok in TOKENS.findall(para):
            if tok.isspace():
                line += " " if line else ""
                continue
            if line.strip() and cell_len(line) + cell_len(tok) > width:
                if tok in NO_LINE_START and len(line.rstrip()) > 1:  # carry the last character down with it
                    line = line.rstrip()
                    out.append(line[:-1].rstrip())
                    line = line[-1]
                else:
                    out.append(line.rstrip())
                    line = ""
            line += tok
        out.append(line.rstrip())
    return "\n".join(out)


def say(con: Console, text: str, style: str | None = None) -> None:
    """Print plain text (no markup); Chinese is wrapped by `fill`, anything else by rich."""
    if re.search(f"[{CJK}]", text):
        con.print(fill(text, max(20, con.width - 1)), style=style, markup=False, highlight=False, soft_wrap=True)
    else:
        con.print(text, style=style, markup=False, highlight=False)
