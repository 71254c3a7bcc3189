"""Running a test's script of kernels under Triton's interpreter in a fresh Python (TRITON_INTERPRET must be set
before triton is imported), as a CPU grade runs it: the grader's interpreter speedups (bit-identical and faster:
tests/test_interp_speed.py) and its fixes (grader.watch.interp_compat.install_all: among them one language patch per
launch, not one per device-function call, which halved the candidate tests), and reading the one line of results
it prints as `RESULT <json>`.

The script sees sys.argv[1] = the checkout's root (already on sys.path) and the extra arguments after it."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARK = "RESULT "

PREAMBLE = r'''
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
sys.path.insert(0, sys.argv[1])
from grader.watch.interp_compat import install_all
from grader.watch.interp_speed import install
install()
install_all()  # the interpreter as a CPU grade runs it
'''


def run(script: str, *args: str, timeout: float = 600) -> dict:
    """The script's `RESULT` line as data; a script that prints none fails the test with its output's tail."""
    proc = subprocess.run([sys.executable, "-c", PREAMBLE + script, str(ROOT), *args], capture_output=True, check=False,
                          text=True, timeout=timeout)
    line = next((x for x in proc.stdout.splitlines() if x.startswith(MARK)), None)
    assert line, proc.stdout[-2000:] + proc.stderr[-3000:]
    return json.loads(line[len(MARK):])
