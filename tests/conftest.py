import hashlib
import heapq
import itertools
import os
import sys
import threading
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
        unpin = _pin_queue_threads_to(workers)
        yield workers
        unpin()


_queue_thread = threading.local()


def _pin_queue_threads_to(workers):
    """The background queue's grades (Verdicts' threads) fork from the session's worker whatever a test does to
    `worker._current` meanwhile: a test that swaps in a worker of its own (and kills it, or closes it) or none at
    all changes its own grades, not a queued verdict that happens to run beside it. Every other thread, the main
    one included, still asks `worker.current` as the product does."""
    from grader.run import worker

    product_current = worker.current

    def current(device: str = "cpu"):
        if getattr(_queue_thread, "pinned", False):
            return workers.get(device) if workers is not None else None
        return product_current(device)

    worker.current = current
    return lambda: setattr(worker, "current", product_current)


@pytest.fixture(autouse=True)
def drill_home(tmp_path, monkeypatch):
    """No test touches the real state: DRILL_HOME points at a fresh folder."""
    home = tmp_path / "drill-home"
    monkeypatch.setenv("DRILL_HOME", str(home))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("DRILL_LANG", raising=False)
    return home


class Verdicts:
    """runner.grade for the shipped files (tests/submissions, solutions/, planted bugs, slow versions): each (file,
    content, arguments) is graded once per session and the same verdict handed to every test that asks (grades are
    deterministic: fixed seeds, a counted clock); several test files check different things about the same verdict,
    and none is weaker for sharing it.

    GRADE_THREADS grades run in the background at a time (each a fork of the warm worker, single-threaded), taken
    in order of priority: every test module's `shipped_grades` is queued when the session starts, in the order the
    modules run (`queue_shipped_grades` below), so the machine grades while the other tests run. A test that asks
    for a verdict no thread has started grades it at once on its own thread instead of waiting its turn."""

    NOW = float("-inf")

    def __init__(self, threads: int):
        self.cond = threading.Condition()
        self.jobs: dict = {}          # key -> Job
        self.heap: list = []          # (priority, order, key); a job may be listed twice, the first pop wins
        self.order = itertools.count()
        self.closed = False
        self.threads = [threading.Thread(target=self._work, name=f"grade_{i}", daemon=True) for i in range(threads)]
        for t in self.threads:
            t.start()

    @staticmethod
    def _request(path, drill=None, device="cpu", seed=0, timeout=None):
        from grader.intake.static import drill_of

        path = Path(path).resolve()
        data = path.read_bytes()
        drill = drill or drill_of(data.decode("utf-8", "replace"))  # the file's own `# drill:` line: same grade
        key = (str(path), hashlib.sha256(data).hexdigest(), drill, device, seed, timeout)
        return key, dict(drill=drill, device=device, seed=seed, timeout=timeout)

    def _submit(self, path, priority, **kwargs):
        key, args = self._request(path, **kwargs)
        with self.cond:
            job = self.jobs.get(key)
            if job is None:
                job = self.jobs[key] = Job(Path(key[0]), args)
            if job.started or priority >= job.priority:
                return job
            job.priority = priority
            if priority != self.NOW:
                heapq.heappush(self.heap, (priority, next(self.order), key))
                self.cond.notify()
            return job

    def __call__(self, path, **kwargs):
        job = self._submit(path, self.NOW, **kwargs)
        with self.cond:
            mine = not job.started
            job.started = True
        if mine:  # nobody has started it: grade it here rather than wait behind the queue
            job.run()
        return job.future.result()

    def prefetch(self, requests, priority: float = -1.0) -> None:
        """[(path, kwargs)]: grade these in the background, ahead of what the session queued at its start."""
        for path, kwargs in requests:
            self._submit(path, priority, **kwargs)

    def _work(self) -> None:
        _queue_thread.pinned = True
        while True:
            with self.cond:
                while not self.closed and not self.heap:
                    self.cond.wait()
                if self.closed:
                    return
                _, _, key = heapq.heappop(self.heap)
                job = self.jobs[key]
                if job.started:
                    continue
                job.started = True
            job.run()

    def close(self) -> None:
        """Queued grades are dropped; running ones finish (their children end with the warm worker)."""
        with self.cond:
            self.closed = True
            for job in self.jobs.values():
                if not job.started:
                    job.future.cancel()
            self.cond.notify_all()
        for t in self.threads:
            t.join()


class Job:
    def __init__(self, path: Path, args: dict):
        from concurrent.futures import Future

        self.path, self.args = path, args
        self.future: Future = Future()
        self.priority = float("inf")
        self.started = False

    def run(self) -> None:
        from grader.run import runner

        if not self.future.set_running_or_notify_cancel():
            return
        try:
            self.future.set_result(runner.grade(self.path, **self.args))
        except BaseException as e:  # noqa: BLE001 - handed to the test that asks, as runner.grade raised it
            self.future.set_exception(e)


GRADE_THREADS = int(os.environ.get("DRILL_TEST_GRADE_THREADS", min(2, os.cpu_count() or 1)))
MODULES = pytest.StashKey[list]()

# Modules whose tests mostly wait on processes of their own (warm workers starting, signals, kills, timeouts):
# run first, while the background queue grades on the other core, instead of last with that core idle (in file
# order test_worker.py came after the queue had finished: 59 s of the session with one process running, measured
# 2026-12-01 22:30 UTC). Every test still runs, each module's tests in their own order.
RUN_FIRST = ("test_worker.py",)


def pytest_collection_modifyitems(session, config, items):
    """RUN_FIRST's modules ahead of the rest (a stable sort: everything else keeps pytest's order)."""
    def first(item) -> int:
        return 0 if item.path.name in RUN_FIRST else 1

    items.sort(key=first)


def pytest_collection_finish(session):
    """The test modules in the order they will run (for queue_shipped_grades)."""
    modules = []
    for item in session.items:
        module = getattr(item, "module", None)
        if module is not None and module not in modules:
            modules.append(module)
    session.stash[MODULES] = modules


@pytest.fixture(scope="session")
def verdict_of(grading_worker):
    verdicts = Verdicts(GRADE_THREADS)
    yield verdicts
    verdicts.close()


@pytest.fixture(scope="session", autouse=True)
def queue_shipped_grades(request, verdict_of, tmp_path_factory):
    """Every collected module's `shipped_grades(tmp_path_factory) -> [(path, kwargs)]` is queued now, module by
    module in the order they run: the grades of later modules are done while earlier modules' other tests run."""
    for priority, module in enumerate(request.session.stash.get(MODULES, [])):
        shipped = getattr(module, "shipped_grades", None)
        if shipped is not None:
            try:
                queued = shipped(tmp_path_factory)
            except Exception:  # noqa: BLE001 - that module's own tests fail on it; the rest of the session runs
                continue
            for path, kwargs in queued:
                verdict_of._submit(path, priority, **kwargs)
    yield


def session_file(tmp_path_factory, folder: str, name: str, text: str) -> Path:
    """A generated file graded once per session: the same path whichever fixture or test asks for it (the
    verdict's key includes the path), written only when missing or changed."""
    path = tmp_path_factory.getbasetemp() / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return path
