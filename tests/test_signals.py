"""`drill` ended from outside: Ctrl-C exits 130, SIGTERM 143, SIGHUP 129, and nothing it started keeps running or
stays on disk (the grading child's process group is killed, its scratch folder removed)."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HANG = ROOT / "tests" / "submissions" / "wrong" / "hang.py"


def processes_mentioning(text: str) -> list[str]:
    out = subprocess.run(["ps", "-ww", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if text in line and "ps -eo" not in line]


def wait_for(predicate, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.1)
    return False


@pytest.mark.slow
@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_signal_ends_the_grade_its_children_and_its_scratch_folder(tmp_path, sig, code):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch), DRILL_HOME=str(tmp_path / "home"))
    drill = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "grade", str(HANG), "--device", "cpu",
                              "--timeout", "120"], cwd=str(tmp_path), env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT)
    try:
        # The grading child is running once its scratch folder exists and a process names it.
        started = wait_for(lambda: any(scratch.iterdir()) and processes_mentioning(str(scratch)), 60)
        assert started, (list(scratch.iterdir()), processes_mentioning("grader.run.child"), drill.poll())
        time.sleep(0.5)
        drill.send_signal(sig)
        drill.wait(timeout=30)
    finally:
        if drill.poll() is None:
            drill.kill()
    assert drill.returncode == code
    assert wait_for(lambda: not processes_mentioning(str(scratch)), 10), processes_mentioning(str(scratch))
    assert list(scratch.iterdir()) == []
    assert b"Traceback" not in drill.stdout.read()
