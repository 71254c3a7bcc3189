"""Child processes that run learner or compiler code: their environment, and ending them with all they started."""
from __future__ import annotations

import os
import signal
import subprocess

from .spec import ROOT


def child_env(**extra) -> dict:
    """The caller's environment with this project importable (the child runs `python -m grader.…`)."""
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                PYTHONUNBUFFERED="1", **extra)


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the child's whole process group (it was started with start_new_session=True), then reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()
