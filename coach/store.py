"""The learner's state: one JSON file under click.get_app_dir("drill") (or $DRILL_HOME).

Writes are atomic (temp file + fsync + rename) and serialised with an exclusive lock, so two `drill` processes
never interleave. What is read is checked against the state's shape (SCHEMA below), not trusted:
- a file that is not a drill state at all (bad JSON, binary garbage, a list) is moved aside, reported in one line,
  and replaced;
- a file whose entries are partly of the wrong shape (`{"drills": {"mask": 5}}`) keeps its good entries; the bad
  ones are skipped with a one-line notice, and the file as it was is copied aside before the next write drops them;
- a home that can be read but not written (a read-only DRILL_HOME) is read without the lock and said to be
  read-only; a home that cannot be read or written is reported in one line and the command goes on without saving
  — never a crash.
"""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import time
from contextlib import contextmanager
from pathlib import Path

from grader.core import catalog
from grader.core.files import atomic_write_text, home
from grader.reporting.i18n import resolve_lang

VERSION = 1

NUM = (int, float)
OPT_NUM = (int, float, type(None))
OPT_STR = (str, type(None))
OPT_DICT = (dict, type(None))
# Per entry kind: field -> the types it may have. A field that is absent is filled with its default when used
# (drill_entry, checkpoint_entry); a field that is present with another type makes the entry bad. bool is an int in
# Python: counters that are bools are refused explicitly (see _ok).
REVIEW = {"box": int, "due": NUM, "reviews": int, "last": OPT_NUM}
DRILL = {"attempts": int, "passes": int, "hints_seen": int, "best_s": OPT_NUM, "best_mock_s": OPT_NUM,
         "mocks": int, "last": OPT_DICT, "history": list, "review": OPT_DICT}
RESULT = {"at": NUM, "passed": bool, "diagnosis": OPT_STR, "elapsed_s": OPT_NUM}
CHECKPOINT = {"asked": int, "passes": int, "best_covered": (int, type(None)), "last": OPT_DICT, "history": list,
              "review": OPT_DICT, "typed": int}
MOCK = {"at": NUM, "code": list, "oral": list, "used_s": OPT_NUM}
MOCK_CODE = {"drill": str, "passed": bool, "time_s": OPT_NUM, "attempts": int, "diagnosis": OPT_STR,
             "grade_s": OPT_NUM}
MOCK_ORAL = {"id": str, "answered": bool, "covered": list, "points": int, "rating": (int, type(None)),
             "answer_s": OPT_NUM, "passed": bool}
QUIZ = {"attempts": int, "best": int, "total": int, "last": OPT_DICT}
COUNTERS = {"attempts", "passes", "hints_seen", "mocks", "asked", "typed", "reviews", "box", "points"}


def _ok(obj, fields: dict) -> bool:
    """obj is a dict whose known fields have their types (counters: non-negative ints, never bools)."""
    if not isinstance(obj, dict):
        return False
    for key, types in fields.items():
        if key not in obj:
            continue
        value = obj[key]
        allowed = types if isinstance(types, tuple) else (types,)
        if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
            return False
        if key in COUNTERS and value < 0:
            return False
    return True


def _drill_ok(d) -> bool:
    return (_ok(d, DRILL) and (d.get("review") is None or _ok(d["review"], REVIEW))
            and (d.get("last") is None or _ok(d["last"], RESULT))
            and all(_ok(r, RESULT) for r in d.get("history") or []))


def _checkpoint_ok(c) -> bool:
    return (_ok(c, CHECKPOINT) and (c.get("review") is None or _ok(c["review"], REVIEW))
            and all(isinstance(r, dict) for r in c.get("history") or []))


def _mock_ok(m) -> bool:
    return (_ok(m, MOCK) and all(_ok(c, MOCK_CODE) for c in m.get("code") or [])
            and all(_ok(o, MOCK_ORAL) for o in m.get("oral") or []))


def validate(data) -> tuple[dict | None, list[str]]:
    """(the state with only well-shaped entries, the names of the entries skipped); None when `data` is not a
    drill state at all (not an object, or its sections are not an object / a list)."""
    if not isinstance(data, dict) or not isinstance(data.get("drills", {}), dict) \
            or not isinstance(data.get("checkpoints", {}), dict) or not isinstance(data.get("mocks", []), list):
        return None, []
    bad: list[str] = []
    state = empty_state()
    state.update({k: v for k, v in data.items() if k not in ("drills", "checkpoints", "mocks", "quiz")})
    if "quiz" in data:  # {"inductor": {drill: {attempts, best, total, last}}} (coach/inductor/capture.py)
        quiz = data["quiz"] if isinstance(data["quiz"], dict) else {}
        if not isinstance(data["quiz"], dict):
            bad.append("quiz")
        state["quiz"] = {}
        for kind, entries in quiz.items():
            if not isinstance(entries, dict):
                bad.append(f"quiz.{kind}")
                continue
            state["quiz"][kind] = {}
            for name, e in entries.items():
                if _ok(e, QUIZ):
                    state["quiz"][kind][name] = e
                else:
                    bad.append(f"quiz.{kind}.{name}")
    for name, d in (data.get("drills") or {}).items():
        if _drill_ok(d):
            state["drills"][name] = d
        else:
            bad.append(f"drills.{name}")
    for cid, c in (data.get("checkpoints") or {}).items():
        if _checkpoint_ok(c):
            state["checkpoints"][cid] = c
        else:
            bad.append(f"checkpoints.{cid}")
    for i, m in enumerate(data.get("mocks") or []):
        if _mock_ok(m):
            state["mocks"].append(m)
        else:
            bad.append(f"mocks[{i}]")
    return state, bad


def empty_state() -> dict:
    return {"version": VERSION, "drills": {}, "checkpoints": {}, "mocks": []}


class Store:
    def __init__(self, root: Path | None = None):
        self.root = Path(root) if root else home()
        self.path = self.root / "state.json"
        self.warnings: list[str] = []
        self._kept_aside = False  # the file with skipped entries has been copied aside (once per Store)
        self._malformed: list[str] = []  # the warnings about skipped entries (replaced once the file is kept aside)
        self.lang = resolve_lang()  # the CLI's --lang (DRILL_LANG), else $LANG

    def _say(self, key: str, **kw) -> str:
        """A warning from texts.yaml's `coach.store`, in the learner's language, said once."""
        text = catalog.text(f"coach.store.{key}", self.lang, **kw)
        if text not in self.warnings:
            self.warnings.append(text)
        return text

    @contextmanager
    def _locked(self):
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / "state.lock", "a+") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)

    def _read_unlocked(self, writing: bool = False) -> dict:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return empty_state()
        try:
            state, bad = validate(json.loads(raw.decode("utf-8")))
        except ValueError:  # bad JSON; UnicodeDecodeError is a ValueError too
            state, bad = None, []
        if state is None:
            self._move_aside(writing)
            return empty_state()
        if bad:
            self._skipped(bad, writing)
        return state

    def _move_aside(self, writing: bool) -> None:
        backup = self.path.with_name(f"state.corrupt-{time.strftime('%Y%m%d-%H%M%S')}.json")
        try:
            os.replace(self.path, backup)
            self._say("corrupt_moved", backup=backup)
        except OSError as e:
            self._say("corrupt_kept", path=self.path, why=e.strerror)

    def _skipped(self, bad: list[str], writing: bool) -> None:
        names = ", ".join(bad[:5]) + (catalog.text("coach.store.and_more", self.lang, n=len(bad) - 5)
                                      if len(bad) > 5 else "")
        entries = catalog.text("coach.store.entry" if len(bad) == 1 else "coach.store.entries", self.lang, n=len(bad))
        if not writing:
            self._malformed.append(self._say("skipped_read", entries=entries, path=self.path, names=names))
            return
        if self._kept_aside:
            return
        backup = self.path.with_name(f"state.bad-entries-{time.strftime('%Y%m%d-%H%M%S')}.json")
        try:
            shutil.copyfile(self.path, backup)
            self._kept_aside = True
            self.warnings[:] = [w for w in self.warnings if w not in self._malformed]
            self._say("dropped_kept", entries=entries, path=self.path, names=names, backup=backup)
        except OSError as e:
            self._malformed.append(self._say("skipped_no_copy", entries=entries, path=self.path, names=names,
                                             why=e.strerror))

    def _cannot(self, what: str, e: OSError) -> None:
        self._say(f"cannot_{what}", root=self.root, why=e.strerror or e)

    def read(self) -> dict:
        """The state. A home where the lock cannot be taken (read-only, another owner) is read without it: a
        reader never sees a half-written file anyway, writes being a rename."""
        try:
            with self._locked():
                return self._read_unlocked()
        except OSError:
            pass
        try:
            return self._read_unlocked()
        except OSError as e:
            self._cannot("read", e)
            return empty_state()

    @contextmanager
    def update(self):
        """Read-modify-write under the lock: `with store.update() as state: state[...] = ...`. When the home cannot
        be locked or written, the block still runs — on what could be read, else a fresh state — and a warning
        says nothing was saved."""
        try:
            lock = self._locked()
            lock.__enter__()
        except OSError as e:
            self._cannot("write", e)
            try:
                state = self._read_unlocked()
            except OSError:
                state = empty_state()
            yield state
            return
        try:
            try:
                state = self._read_unlocked(writing=True)
            except OSError as e:
                self._cannot("read", e)
                state = empty_state()
            yield state
            try:
                atomic_write_text(self.path, json.dumps(state, indent=1, ensure_ascii=False))
            except OSError as e:
                self._cannot("write", e)
        finally:
            lock.__exit__(None, None, None)


def drill_entry(state: dict, name: str) -> dict:
    d = state["drills"].setdefault(name, {"attempts": 0, "passes": 0, "hints_seen": 0, "best_s": None,
                                          "last": None, "history": []})
    for key, default in (("attempts", 0), ("passes", 0), ("hints_seen", 0), ("best_s", None), ("best_mock_s", None),
                         ("review", None), ("history", []), ("last", None)):
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


def record_checkpoint(state: dict, cid: str, passed: bool, covered: int | None, points: int, rating: int | None,
                      answer_s: float | None, now: float, typed: bool = False) -> dict:
    """One answer to checkpoint CID, spoken in a mock or typed with `drill checkpoints ID --answer`: asked, passes,
    best coverage, the last result, its history, and the review box (a typed answer counts like a spoken one)."""
    from coach.progress.schedule import review

    e = checkpoint_entry(state, cid)
    e["asked"] += 1
    e["passes"] += int(bool(passed))
    if typed:
        e["typed"] = e.get("typed", 0) + 1
    if covered is not None and (e["best_covered"] is None or covered > e["best_covered"]):
        e["best_covered"] = covered
    e["last"] = {"at": now, "covered": covered or 0, "points": points, "rating": rating, "passed": bool(passed),
                 "answer_s": answer_s, "how": "typed" if typed else "mock"}
    e["history"] = (e.get("history") or [])[-19:] + [e["last"]]
    e["review"] = review(e.get("review"), bool(passed), now)
    return e


def record_answer(store: Store, cid: str, score, now: float | None = None) -> None:
    """A typed answer's score (coach.oral.scoring.Score) into the state, as record_checkpoint says."""
    now = time.time() if now is None else now
    with store.update() as state:
        record_checkpoint(state, cid, bool(score.passed), len(score.covered), len(score.points), None, None, now,
                          typed=True)
