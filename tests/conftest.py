import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


@pytest.fixture(scope="session", autouse=True)
def grading_worker():
    """One warm grading worker for the whole session (grader/run/worker.py): every grade is a fork of a process that
    imported torch and Triton once, instead of a new Python importing them (~1.5 s a grade). A test that needs
    cold children sets `worker._current` to None; DRILL_NO_WORKER=1 runs the whole suite cold."""
    from grader.run import worker

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


class Verdicts:
    """runner.grade for the shipped files (tests/submissions, solutions/): each (file content, arguments) is graded
    once per session and the same verdict handed to every test that asks (grades are deterministic: fixed seeds);
    several test files check different things about the same verdict, and none is weaker for sharing it.

    `prefetch` queues a module's grades up front; GRADE_THREADS of them run at a time (each is a fork of the warm
    worker, single-threaded: two keep a 2-core machine busy while the tests wait for their verdicts)."""

    def __init__(self, threads: int):
        from concurrent.futures import ThreadPoolExecutor
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="grade")
        self.futures: dict = {}

    def _submit(self, path, drill=None, device="cpu", seed=0, timeout=None):
        import hashlib

        from grader.run import runner
        from grader.intake.static import drill_of

        path = Path(path).resolve()
        data = path.read_bytes()
        drill = drill or drill_of(data.decode("utf-8", "replace"))  # the file's own `# drill:` line: same grade
        key = (str(path), hashlib.sha256(data).hexdigest(), drill, device, seed, timeout)
        if key not in self.futures:
            self.futures[key] = self.pool.submit(runner.grade, path, drill=drill, device=device, seed=seed,
                                                 timeout=timeout)
        return self.futures[key]

    def __call__(self, path, **kwargs):
        return self._submit(path, **kwargs).result()

    def prefetch(self, requests) -> None:
        """[(path, kwargs)]: start grading these now, in the background."""
        for path, kwargs in requests:
            self._submit(path, **kwargs)


GRADE_THREADS = int(os.environ.get("DRILL_TEST_GRADE_THREADS", min(2, os.cpu_count() or 1)))


@pytest.fixture(scope="session")
def verdict_of(grading_worker):
    verdicts = Verdicts(GRADE_THREADS)
    yield verdicts
    verdicts.pool.shutdown(wait=True, cancel_futures=True)
