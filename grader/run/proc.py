"""Child processes that run learner or compiler code: their environment, starting and ending them, their scratch
folders, and what happens to all of them when `drill` itself is interrupted or terminated.

Every child runs in its own session (process group), so a kill reaches whatever the learner's code started.
`end_all()` kills every child still running and removes every scratch folder: the CLI calls it on Ctrl-C, SIGTERM
and SIGHUP, whichever thread the grade was running on.
"""
from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from contextlib import contextmanager

from grader.core.spec import ROOT

LIVE: set = set()       # children started and not yet reaped
LIVE_DIRS: set = set()  # scratch folders not yet removed


def child_env(**extra) -> dict:
    """The caller's environment with this project importable (the child runs `python -m grader.…`). String
    hashing is fixed (PYTHONHASHSEED=0): no set or dict order in a grade can differ from one run to the next."""
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                PYTHONUNBUFFERED="1", PYTHONHASHSEED="0", **extra)


def bytecode_env() -> dict:
    """Where a child that imports learner code keeps compiled bytecode. Never beside the learner's file (no
    __pycache__ appears in their folder). Normally nowhere (PYTHONDONTWRITEBYTECODE): torch's own bytecode was
    compiled when it was installed. But an install without it (`pip install --no-compile`, a read-only image, as on
    the H200 machine this project measures on) makes every child compile ~1000 of torch's modules again, 1.5-3 s of
    each grade: then bytecode goes to drill's cache folder (PYTHONPYCACHEPREFIX), compiled once."""
    cached = _torch_has_bytecode()
    if cached is not False:
        return {"PYTHONDONTWRITEBYTECODE": "1"}
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    # An empty PYTHONDONTWRITEBYTECODE is unset to Python: the cache must be written to be of use.
    return {"PYTHONDONTWRITEBYTECODE": "",
            "PYTHONPYCACHEPREFIX": os.environ.get("PYTHONPYCACHEPREFIX") or os.path.join(base, "drill", "pycache")}


@functools.lru_cache(maxsize=None)
def _torch_has_bytecode() -> bool | None:
    """Is torch's __init__ compiled beside its source? None when torch is not found (the child will say so).
    Located without importing torch (the CLI's parent never does); asked once per process."""
    import importlib.util
    try:
        origin = importlib.util.find_spec("torch").origin
        return os.path.exists(importlib.util.cache_from_source(origin))
    except (AttributeError, ImportError, ValueError, NotImplementedError):
        return None


def spawn(cmd: list[str], **kwargs) -> subprocess.Popen:
    """Popen in a new session, registered so that end_all() can reach it."""
    proc = subprocess.Popen(cmd, start_new_session=True, **kwargs)
    LIVE.add(proc)
    return proc


def reaped(proc: subprocess.Popen) -> None:
    LIVE.discard(proc)


def kill_pgid(pid: int | None) -> None:
    """SIGKILL a child's whole process group (each child starts a session of its own, so its pid is the group's)."""
    if pid:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def kill_group(proc: subprocess.Popen) -> None:
    """Kill the child's whole process group, then reap it."""
    kill_pgid(proc.pid)
    proc.wait()
    LIVE.discard(proc)


@contextmanager
def scratch_dir(prefix: str):
    """A temporary folder that end_all() removes too (a signal may end us while a grade runs on a thread)."""
    path = tempfile.mkdtemp(prefix=prefix)
    LIVE_DIRS.add(path)
    try:
        yield path
    finally:
        LIVE_DIRS.discard(path)
        shutil.rmtree(path, ignore_errors=True)


def end_all() -> None:
    """Kill every child's process group and remove every scratch folder still registered."""
    for proc in list(LIVE):  # not reaped here: the thread that started each one is waiting on it
        kill_pgid(proc.pid)
        LIVE.discard(proc)
    for path in list(LIVE_DIRS):
        shutil.rmtree(path, ignore_errors=True)
        LIVE_DIRS.discard(path)


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived; unwinds like Ctrl-C (not an Exception: nothing on the way swallows it)."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def raise_on_termination() -> None:
    """SIGTERM and SIGHUP raise Terminated in the main thread, so `finally` blocks and end_all() run."""
    def handler(signum, frame):
        raise Terminated(signum)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, handler)


def nvidia_driver_present() -> bool:
    """A cheap look for an NVIDIA driver. Whether torch can use it is the CUDA child's first question; when it
    cannot (a CPU build of torch, say), the grade falls back to the interpreter."""
    if os.environ.get("DRILL_FORCE_CPU"):
        return False
    return os.path.exists("/dev/nvidiactl") or shutil.which("nvidia-smi") is not None


def cuda_available() -> bool:
    """Ask a throwaway interpreter whether torch can use CUDA, so the caller never initialises CUDA itself."""
    if not nvidia_driver_present():
        return False  # no NVIDIA driver: skip the 1-2 s torch import of the probe
    try:
        r = subprocess.run([sys.executable, "-c", "import torch,sys;sys.exit(0 if torch.cuda.is_available() else 3)"],
                           capture_output=True, timeout=120)
        return r.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
