"""Issue 20 on a GPU machine: what a learner sees from `drill grade --device cuda` in a terminal (the status line
beside the CUDA timing's own progress lines) and from `drill bench --json`. No pexpect needed (stdlib pty).

    PYTHONPATH=. python benchmarks/hands_h200.py

Prints, for each command: its exit code, its wall time, and the terminal's text with the status line's redraws
collapsed; then OK/PROBLEM lines for what must hold:
  - the grade of the fused reference passes (exit 0) and its report is whole (PASS, "graded in");
  - the status line named a stage ("calling your function at size" or "timing your kernel");
  - no line of the report starts inside a status line (no "grading fuse.py ·" on a report line);
  - `drill bench solutions/fuse.py --json --sizes 4096,65536` exits 0 and prints one JSON object with rows;
  - `drill grade solutions/fuse.py --device cuda --format gcc` prints nothing and exits 0.
"""
from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def in_terminal(args: list[str], timeout: float = 300.0) -> tuple[int, float, str]:
    t0 = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(ROOT)
        os.environ.update(PYTHONPATH=str(ROOT), TERM="xterm", NO_COLOR="1", COLUMNS="120")
        os.execv(sys.executable, [sys.executable, "cli.py"] + args)
    chunks = []
    while time.perf_counter() - t0 < timeout:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), time.perf_counter() - t0, b"".join(chunks).decode("utf-8", "replace")


TOKEN = re.compile(r"\x1b\[(\d*)([A-Za-z])|\x1b\[\?\d+[hl]|\r|\n|[^\x1b\r\n]+")


def screen(raw: str) -> list[str]:
    """The lines as they end up on the terminal: a tiny emulator of what rich writes (text, CR, LF, cursor up,
    erase line); other escape sequences (styles) are dropped."""
    lines, row, col = [""], 0, 0
    for m in TOKEN.finditer(raw):
        tok = m.group(0)
        if tok == "\n":
            row += 1
            col = 0
            if row == len(lines):
                lines.append("")
        elif tok == "\r":
            col = 0
        elif m.group(2) == "A":
            row = max(0, row - int(m.group(1) or 1))
        elif m.group(2) == "K":
            lines[row] = lines[row][:col] if m.group(1) in ("", "0") else ""
        elif tok.startswith("\x1b"):
            continue
        else:
            line = lines[row]
            lines[row] = line[:col] + tok + line[col + len(tok):]
            col += len(tok)
    return [ln for ln in lines if ln.strip()]


def main() -> int:
    problems = []
    code, wall, raw = in_terminal(["grade", "solutions/fuse.py", "--device", "cuda"])
    shown = screen(raw)
    print(f"$ drill grade solutions/fuse.py --device cuda   exit {code}   {wall:.1f} s")
    print("\n".join("  " + ln for ln in shown))
    if code != 0 or not any("PASS" in ln for ln in shown) or not any("graded in" in ln for ln in shown):
        problems.append("the CUDA grade of the fused reference did not pass with a whole report")
    if not re.search(r"calling your function at size|timing your kernel", raw):
        problems.append("the status line never named a stage")
    if any("grading fuse.py ·" in ln for ln in shown if "PASS" in ln or "graded in" in ln or "✓" in ln):
        problems.append("a report line was written into the status line")

    out = subprocess.run([sys.executable, "cli.py", "bench", "solutions/fuse.py", "--json", "--sizes", "4096,65536"],
                         cwd=str(ROOT), capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                         timeout=600)
    print(f"$ drill bench solutions/fuse.py --json --sizes 4096,65536   exit {out.returncode}")
    try:
        rows = json.loads(out.stdout).get("rows")
    except ValueError:
        rows = None
    print(f"  rows: {len(rows) if rows else rows}; stderr tail: {out.stderr.strip()[-300:]!r}")
    if out.returncode != 0 or not rows:
        problems.append("drill bench --json did not give one object with rows")

    gcc = subprocess.run([sys.executable, "cli.py", "grade", "solutions/fuse.py", "--device", "cuda", "--format",
                          "gcc"], cwd=str(ROOT), capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=600)
    print(f"$ drill grade solutions/fuse.py --device cuda --format gcc   exit {gcc.returncode}   "
          f"stdout {gcc.stdout.strip()!r}")
    if gcc.returncode != 0 or gcc.stdout.strip():
        problems.append("--format gcc on a pass printed something or failed")

    for p in problems:
        print("PROBLEM:", p)
    if not problems:
        print("OK: CUDA grade, status line, bench --json and --format gcc behave as issue 20 asks")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
