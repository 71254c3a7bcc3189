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


_VERDICTS: dict = {}


@pytest.fixture(scope="session")
def verdict_of():
    """runner.grade for the shipped files (tests/submissions, solutions/): each (file content, arguments) is graded
    once per session and the same verdict object handed to every test that asks (grades are deterministic: fixed
    seeds). Several test files check different things about the same verdict; none is weaker for sharing it."""
    import hashlib

    from grader import runner
    from grader.static import drill_of

    def grade(path, drill=None, device="cpu", seed=0, timeout=None):
        path = Path(path).resolve()
        data = path.read_bytes()
        drill = drill or drill_of(data.decode("utf-8", "replace"))  # the file's own `# drill:` line: same grade
        key = (str(path), hashlib.sha256(data).hexdigest(), drill, device, seed, timeout)
        if key not in _VERDICTS:
            _VERDICTS[key] = runner.grade(path, drill=drill, device=device, seed=seed, timeout=timeout)
        return _VERDICTS[key]
    return grade
