import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


@pytest.fixture(scope="session", autouse=True)
def grading_worker():
    """One warm grading worker for the whole session (grader/worker.py): every grade is a fork of a process that
    imported torch and Triton once, instead of a new Python importing them (~1.5 s a grade). A test that needs
    cold children sets `worker._current` to None; DRILL_NO_WORKER=1 runs the whole suite cold."""
    from grader import worker

    with worker.warm() as workers:
        yield workers


@pytest.fixture(autouse=True)
def drill_home(tmp_path, monkeypatch):
    """No test touches the real state: DRILL_HOME points at a fresh folder."""
    home = tmp_path / "drill-home"
    monkeypatch.setenv("DRILL_HOME", str(home))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("DRILL_LANG", raising=False)
    return home
