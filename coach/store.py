"""The learner's state: one JSON file under click.get_app_dir("drill") (or $DRILL_HOME).

Writes are atomic (temp file + fsync + rename) and serialised with an exclusive lock, so two `drill` processes
never interleave. A corrupt file (bad JSON, binary garbage) is moved aside, reported in one line, and replaced; a
home that cannot be read or written (permissions, a full disk) is reported in one line and the command goes on
without saving — never a crash.
"""
from __future__ import annotations

import fcntl
import json
import os
import time
from contextlib import contextmanager
from pathlib import Path

from grader.core.files import atomic_write_text, home

VERSION = 1


def empty_state() -> dict:
    return {"version": VERSION, "drills": {}, "checkpoints": {}, "mocks": []}


class Store:
    def __init__(self, root: Path | None = None):
        self.root = Path(root) if root else home()
        self.path = self.root / "state.json"
        self.warnings: list[str] = []

    @contextmanager
    def _locked(self):
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / "state.lock", "a+") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)

    def _read_unlocked(self) -> dict:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return empty_state()
        try:
            data = json.loads(raw.decode("utf-8"))
            if not isinstance(data, dict) or not isinstance(data.get("drills", {}), dict) \
                    or not isinstance(data.get("checkpoints", {}), dict) or not isinstance(data.get("mocks", []), list):
                raise ValueError("not a drill state object")
        except ValueError:  # UnicodeDecodeError is a ValueError too
            backup = self.path.with_name(f"state.corrupt-{time.strftime('%Y%m%d-%H%M%S')}.json")
            try:
                os.replace(self.path, backup)
                self.warnings.append(f"drill: the state file was corrupt; moved it to {backup} and started afresh")
            except OSError as e:
                self.warnings.append(f"drill: the state file {self.path} is corrupt and could not be moved aside "
                                     f"({e.strerror}); starting afresh without it")
            return empty_state()
        base = empty_state()
        base.update(data)
        return base

    def _cannot(self, what: str, e: OSError) -> None:
        self.warnings.append(f"drill: cannot {what} {self.root} ({e.strerror or e}); your progress is not saved "
                             f"this time (set DRILL_HOME to a writable folder)")

    def read(self) -> dict:
        try:
            with self._locked():
                return self._read_unlocked()
        except OSError as e:
            self._cannot("read", e)
            return empty_state()

    @contextmanager
    def update(self):
        """Read-modify-write under the lock: `with store.update() as state: state[...] = ...`. When the home cannot
        be locked, read or written, the block still runs on a fresh state and a warning says nothing was saved."""
        try:
            lock = self._locked()
            lock.__enter__()
        except OSError as e:
            self._cannot("write to", e)
            yield empty_state()
            return
        try:
            try:
                state = self._read_unlocked()
            except OSError as e:
                self._cannot("read", e)
                state = empty_state()
            yield state
            try:
                atomic_write_text(self.path, json.dumps(state, indent=1, ensure_ascii=False))
            except OSError as e:
                self._cannot("write to", e)
        finally:
            lock.__exit__(None, None, None)


def drill_entry(state: dict, name: str) -> dict:
    d = state["drills"].setdefault(name, {"attempts": 0, "passes": 0, "hints_seen": 0, "best_s": None,
                                          "last": None, "history": []})
    for key, default in (("attempts", 0), ("passes", 0), ("best_s", None), ("best_mock_s", None), ("review", None)):
        d.setdefault(key, default)
    return d


def checkpoint_entry(state: dict, cid: str) -> dict:
    """Per checkpoint id: how often asked, best coverage, last answer's result, review schedule."""
    c = state["checkpoints"].setdefault(cid, {})
    for key, default in (("asked", 0), ("passes", 0), ("best_covered", None), ("last", None), ("review", None),
                         ("history", [])):
        c.setdefault(key, default)
    return c


def record_grade(store: Store, verdict, now: float | None = None) -> None:
    """One grade: attempts, passes, duration (verdict.elapsed_s), best_s (fastest passing grade), review box."""
    from coach.progress.schedule import review  # local: keeps `import coach.store` light

    with store.update() as state:
        d = drill_entry(state, verdict.drill)
        d["attempts"] += 1
        now = time.time() if now is None else now
        elapsed = getattr(verdict, "elapsed_s", None)
        result = {"at": now, "passed": verdict.passed, "diagnosis": verdict.diagnosis, "device": verdict.device,
                  "file": verdict.file, "elapsed_s": elapsed}
        if verdict.passed:
            d["passes"] += 1
            if elapsed is not None and (d["best_s"] is None or elapsed < d["best_s"]):
                d["best_s"] = elapsed
        d["last"] = result
        d["history"] = (d.get("history") or [])[-49:] + [result]
        d["review"] = review(d.get("review"), bool(verdict.passed), now)
