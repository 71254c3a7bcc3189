"""A timed mock interview: code on the clock, then an oral round, then a scorecard saved to history.

The interview is a pure state machine (`Mock`) driven by three injected things:
- a clock (`clock() -> seconds`, monotonic),
- an input source (`poll(timeout) -> line | None | EOF`),
- a grader (`grader(path, drill) -> verdict-like object` with .passed, .diagnosis, .elapsed_s, and .evidence).
The oral round opens with questions about the learner's own passing kernel, built from the verdict's evidence
(coach/mock/own_kernel.py: numbers the tool checks), then the checkpoint questions; typed answers are scored by
coach/oral/scoring.py (concept matchers and known-wrong claims).
`run()` is the loop that ties them together; the terminal layer (coach/mock/tui.py) only renders events. Tests
drive it with a fake clock and scripted lines, with no terminal and no real grading.
"""
from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import drills
from grader.core import catalog
from grader.reporting.texts import checkpoints, checkpoints_for
from coach.mock import own_kernel
from coach.progress import schedule
from coach.oral import scoring, verdict
from coach.store import drill_entry, record_checkpoint

CODE, ASK, RATE, DONE = "code", "ask", "rate", "done"
EOF = object()  # what an input source returns when its input is closed


class MockError(catalog.TextError):
    """A usage problem (folder not empty, no drills): the CLI prints it, in the learner's language, and exits 2."""


# ---------------------------------------------------------------- choosing what to ask

def pick_drills(state: dict, names: list[str], k: int, seed: int | None, now: float) -> list[str]:
    """k drills, weak or unseen first: never tried, then due for review (lowest box first), then the rest."""
    rng = random.Random(seed)
    pool = list(names)
    rng.shuffle(pool)  # ties are broken by the seed, not by the order of the specs

    def key(name):
        d = state.get("drills", {}).get(name) or {}
        item = d.get("review")
        if not d.get("attempts"):
            return (0, 0, 0.0)
        if item is None:  # graded before reviews existed: order by pass rate
            return (1, 0, d.get("passes", 0) / max(1, d["attempts"]))
        return schedule.priority(item, now)

    return sorted(pool, key=key)[:max(0, k)]


DEFAULT_CODE_MINUTES = 10.0


def coding_minutes(names: list[str], given: float | None) -> float:
    """The coding clock: what the learner asked for, else the longest default of the drills drawn (a FlashAttention
    forward is not a vector add: tensor-core drills carry their own `mock_minutes`)."""
    if given is not None:
        return given
    return max([drills.get_spec(n).mock_minutes or DEFAULT_CODE_MINUTES for n in names] or [DEFAULT_CODE_MINUTES])


def pick_questions(state: dict, drill_names: list[str], q: int, seed: int | None, now: float) -> list[str]:
    """q checkpoint ids: those due (or never asked) first, those of the chosen drills before others."""
    rng = random.Random(None if seed is None else seed + 1)
    linked: list[str] = []
    for name in drill_names:
        for cid, _ in checkpoints_for(name):
            if cid not in linked:
                linked.append(cid)
    others = [cid for cid in checkpoints() if cid not in linked]
    pool = linked + others
    rng.shuffle(pool)

    def key(cid):
        item = (state.get("checkpoints", {}).get(cid) or {}).get("review")
        p = schedule.priority(item, now)
        return (p[0] > 1, cid not in linked, p)

    return sorted(pool, key=key)[:max(0, q)]


# ---------------------------------------------------------------- scoring an answer

def oral_passed(answered: bool, scored_pass: bool, rating: int | None, kind: str = "checkpoint") -> bool:
    """Said aloud: a self-rating of 3+ counts. Typed: the tool's score must pass (coach/oral/scoring.py: enough key
    points and no known-wrong claim), and for a checkpoint the self-rating must be 3+ too; a question about your
    own kernel is decided by the numbers alone."""
    if answered and kind in ("kernel", "review"):  # numbers, or a line number and a fix: the check decides
        return scored_pass
    if rating is None or rating < 3:
        return False
    return not answered or scored_pass


# ---------------------------------------------------------------- the state machine

@dataclass
class CodeTask:
    drill: str
    path: Path
    seen: tuple | None = None          # (mtime_ns, size) when last graded (or written)
    attempts: int = 0
    passed: bool = False
    diagnosis: str | None = "untouched"
    pass_at: float | None = None       # seconds since the start when it last turned to pass
    grade_s: float | None = None
    verdict: object = None
    job: object = None                 # a grade running in the background (has .done() and .result())


@dataclass
class Question:
    cid: str
    text: dict
    answer: dict
    rubric: list                       # [{"point": {en, zh}}, ...]
    kind: str = "checkpoint"           # or "kernel": about the learner's own kernel (coach/mock/own_kernel.py)
    kernel: object = None              # the KernelQuestion of a "kernel" question
    review: object = None              # kind "review": a planted bug to find (coach/bughunt/review.py)
    seconds: float | None = None       # this question's clock (default: the oral round's)
    drill: str | None = None
    started: float | None = None
    answer_s: float | None = None
    answer_text: str = ""
    timed_out: bool = False
    covered: list = field(default_factory=list)
    score: object = None               # scoring.Score or own_kernel.KernelScore of a typed answer
    rating: int | None = None
    warned: set = field(default_factory=set)

    @property
    def scored_pass(self) -> bool:
        return bool(self.score is not None and self.score.passed)


def kernel_question(q: own_kernel.KernelQuestion) -> Question:
    return Question(cid=q.qid, text=q.text, answer=q.answer, rubric=[{"point": p.label} for p in q.parts],
                    kind="kernel", kernel=q, drill=q.drill)


def file_stamp(path: Path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


class Mock:
    WARN_AT = (60, 30, 10)  # seconds left: a warning line on each clock

    def __init__(self, tasks: list[CodeTask], questions: list[Question], code_seconds: float, oral_seconds: float,
                 clock: Callable[[], float], grader: Callable, listener: Callable | None = None,
                 stamp: Callable = file_stamp, background: Callable | None = None, kernel_questions: int = 1,
                 rng: random.Random | None = None):
        self.tasks, self.questions = tasks, questions
        self.kernel_questions = max(0, kernel_questions)  # per passing drill, asked first in the oral round
        self.rng = rng or random.Random(0)
        self.code_seconds, self.oral_seconds = float(code_seconds), float(oral_seconds)
        self.clock, self.grader, self.listener, self.stamp = clock, grader, listener, stamp
        self.background = background  # (fn, *args) -> job; None: grade inline (tests, simple callers)
        self.phase = CODE
        self.t0: float | None = None
        self.used_s: float | None = None
        self.submitted: str | None = None
        self.qi = 0
        self.events: list[tuple[str, dict]] = []
        self.warned: set = set()

    # events -------------------------------------------------------------
    def emit(self, kind: str, **data) -> None:
        self.events.append((kind, data))
        if self.listener:
            self.listener(kind, data, self)

    # time ---------------------------------------------------------------
    def elapsed(self) -> float:
        return self.clock() - self.t0

    def code_left(self) -> float:
        return max(0.0, self.code_seconds - self.elapsed())

    def question(self) -> Question | None:
        return self.questions[self.qi] if self.qi < len(self.questions) else None

    def question_left(self) -> float:
        q = self.question()
        if q is None or q.started is None:
            return 0.0
        return max(0.0, (q.seconds or self.oral_seconds) - (self.clock() - q.started))

    # driving ------------------------------------------------------------
    def start(self) -> None:
        self.t0 = self.clock()
        for t in self.tasks:
            if t.seen is None:  # prepare() stamps the skeletons it writes; tasks made elsewhere start from now
                t.seen = self.stamp(t.path)
        self.emit("code-start")

    def tick(self) -> None:
        """Advance on the clock alone: grade saved files, end the coding clock or a question's clock."""
        if self.phase == CODE:
            self.grade_changed()
            left = self.code_left()
            self._warn(left, "code")
            if left <= 0:
                self.submit("time")
        elif self.phase == ASK:
            left = self.question_left()
            self._warn(left, f"q{self.qi}")
            if left <= 0:
                q = self.question()
                q.timed_out = True
                self.answer("")

    def feed(self, line: str) -> None:
        """One line the learner typed (without the newline)."""
        line = line.rstrip("\r\n")
        if self.phase == CODE:
            self.submit("enter")
        elif self.phase == ASK:
            self.answer(line)
        elif self.phase == RATE:
            self.rate(line)

    def eof(self) -> None:
        """The input closed: submit what there is, leave the rest unanswered and unrated."""
        if self.phase == CODE:
            self.submit("eof")
        while self.phase in (ASK, RATE):
            if self.phase == ASK:
                self.answer("")
            else:
                self._rated(None)

    # code ---------------------------------------------------------------
    def grade_changed(self) -> None:
        self.collect()
        for t in self.tasks:
            if t.job is not None:
                continue  # a save during a grade is graded when that grade is back
            stamp = self.stamp(t.path)
            if stamp is not None and stamp != t.seen:
                t.seen = stamp
                self.grade(t)

    def grade(self, t: CodeTask) -> None:
        self.emit("grading", task=t)
        t.attempts += 1
        if self.background is not None:
            t.job = self.background(self.grader, t.path, t.drill)
            return
        try:
            v = self.grader(t.path, t.drill)
        except Exception as e:
            return self._graded(t, None, e)
        self._graded(t, v, None)

    def collect(self, wait: bool = False) -> None:
        """Take in the background grades that are back (all of them, waiting, when wait=True)."""
        for t in self.tasks:
            if t.job is not None and (wait or t.job.done()):
                job, t.job = t.job, None
                try:
                    v = job.result()
                except Exception as e:
                    self._graded(t, None, e)
                else:
                    self._graded(t, v, None)

    def grading(self) -> bool:
        return any(t.job is not None for t in self.tasks)

    def _graded(self, t: CodeTask, v, error) -> None:
        if error is not None:  # an unreadable file (deleted, not UTF-8): a failed attempt, not a crash
            self.emit("grade-error", task=t, error=str(error))
            t.passed, t.diagnosis, t.pass_at = False, "unreadable", None
            return
        t.verdict, t.grade_s = v, getattr(v, "elapsed_s", None)
        t.diagnosis = None if v.passed else (v.diagnosis or "fail")
        if v.passed and not t.passed:
            t.pass_at = self.elapsed()
        if not v.passed:
            t.pass_at = None
        t.passed = bool(v.passed)
        self.emit("graded", task=t, verdict=v)

    def submit(self, how: str) -> None:
        self.collect(wait=True)
        self.grade_changed()  # a save just before Enter still counts
        self.collect(wait=True)
        self.used_s = min(self.elapsed(), self.code_seconds)
        self.submitted = how
        self.emit("submitted", how=how)
        self.add_kernel_questions()
        self.next_question(first=True)

    def add_kernel_questions(self) -> None:
        """Questions about each passing submission, from its verdict's evidence, before the checkpoint questions."""
        mine = []
        for t in self.tasks:
            if not t.passed or self.kernel_questions == 0:
                continue
            available = own_kernel.questions(t.verdict, t.drill)
            self.rng.shuffle(available)
            mine += [kernel_question(q) for q in available[:self.kernel_questions]]
        self.questions[:0] = mine

    # oral ---------------------------------------------------------------
    def next_question(self, first: bool = False) -> None:
        if not first:
            self.qi += 1
        q = self.question()
        if q is None:
            self.phase = DONE
            self.emit("done")
            return
        self.phase = ASK
        q.started = self.clock()
        self.emit("question", q=q, index=self.qi)

    def answer(self, text: str) -> None:
        q = self.question()
        q.answer_s = min(self.clock() - q.started, q.seconds or self.oral_seconds)
        q.answer_text = text.strip()
        if q.answer_text:
            if q.kind == "review":
                from coach.bughunt import review
                q.score = review.check(q.review, q.answer_text)
            else:
                q.score = (own_kernel.check(q.kernel, q.answer_text) if q.kind == "kernel"
                           else scoring.score(q.cid, q.answer_text))
            q.covered = q.score.covered
        self.phase = RATE
        self.emit("review", q=q, index=self.qi)
        if q.kind in ("kernel", "review") and q.answer_text:
            self._rated(None)  # the numbers (or the line and the fix) decide; no self-rating

    def rate(self, line: str) -> None:
        s = line.strip()
        if s in ("1", "2", "3", "4", "5"):
            self._rated(int(s))
        else:
            self.emit("rate-invalid", text=s)

    def _rated(self, rating: int | None) -> None:
        q = self.question()
        q.rating = rating
        self.emit("rated", q=q, index=self.qi)
        self.next_question()

    def _warn(self, left: float, which: str) -> None:
        for mark in self.WARN_AT:
            if 0 < left <= mark and (which, mark) not in self.warned:
                total = self.code_seconds if which == "code" else self.oral_seconds
                self.warned.add((which, mark))
                if total > mark:  # no "60 s left" on a 60 s clock
                    self.emit("time-warning", which=which, left=mark)
                break

    # result -------------------------------------------------------------
    def scorecard(self) -> dict:
        code = [{"drill": t.drill, "file": str(t.path), "passed": t.passed,
                 "time_s": round(t.pass_at if t.passed and t.pass_at is not None else (self.used_s or 0.0), 1),
                 "attempts": t.attempts, "diagnosis": t.diagnosis,
                 "grade_s": t.grade_s} for t in self.tasks]
        oral = []
        for q in self.questions:
            answered = bool(q.answer_text)
            entry = {"id": q.cid, "kind": q.kind, "answered": answered, "timed_out": q.timed_out,
                     "answer_s": None if q.answer_s is None else round(q.answer_s, 1),
                     "covered": list(q.covered), "points": len(q.rubric), "rating": q.rating,
                     "passed": oral_passed(answered, q.scored_pass, q.rating, q.kind)}
            if q.kind == "kernel":
                entry["drill"] = q.drill
                entry["question"] = q.text
                entry["unexplained"] = list(getattr(q.score, "unexplained", []) or [])
            elif q.kind == "review":  # the scorecard shows the planted mistake
                from coach.bughunt import review
                entry.update(review.card_entry(q.review, q.score))
            else:
                entry["wrong_claims"] = [w["id"] for w in getattr(q.score, "wrong_claims", []) or []]
                entry["rule"] = verdict.entry_rule(q.score, answered, q.rating)  # the pass rule, said
            oral.append(entry)
        return {"code_seconds": self.code_seconds, "oral_seconds": self.oral_seconds,
                "used_s": None if self.used_s is None else round(self.used_s, 1), "submitted": self.submitted,
                "code": code, "oral": oral}


# ---------------------------------------------------------------- setting up and running

def prepare(folder: Path, drill_names: list[str], question_ids: list[str]) -> tuple[list[CodeTask], list[Question]]:
    """Write the skeletons into a fresh folder (refusing a non-empty one); load the questions."""
    import drills

    folder = Path(folder)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise MockError("coach.common.mock_folder_taken", folder=folder)
    if not drill_names:
        raise MockError("coach.common.mock_no_drills")
    folder.mkdir(parents=True, exist_ok=True)
    tasks = []
    for name in drill_names:
        spec = drills.get_spec(name)
        path = folder / f"{spec.slug}.py"
        path.write_text(spec.skeleton_path.read_text(encoding="utf-8"), encoding="utf-8")
        # The stamp of what drill wrote, taken now: a save made while the mock is still starting (its warm worker
        # can take seconds) differs from it and is graded at the first tick.
        tasks.append(CodeTask(drill=name, path=path, seen=file_stamp(path)))
    table = checkpoints()
    qs = [Question(cid=cid, text=table[cid].get("question") or {}, answer=table[cid].get("answer") or {},
                   rubric=table[cid].get("rubric") or []) for cid in question_ids if cid in table]
    return tasks, qs


def run(mock: Mock, source, poll_s: float = 0.25, on_tick: Callable | None = None) -> dict:
    """The loop: wait for a line (at most poll_s), hand it over, let the clock act; until the scorecard."""
    mock.start()
    while mock.phase != DONE:
        line = source.poll(poll_s)
        if line is EOF:
            mock.eof()
        elif line is not None:
            mock.feed(line)
        if mock.phase != DONE:
            mock.tick()
        if on_tick:
            on_tick(mock)
    return mock.scorecard()


def empty_session(card: dict) -> bool:
    """Nothing happened: no save was graded, no question answered or rated (an EOF at the start, a closed stdin).
    Such a session is not an interview: saving it would mark every drill and question failed and due."""
    return (not any(c.get("attempts") for c in card.get("code", []))
            and not any(o.get("answered") or o.get("rating") is not None for o in card.get("oral", [])))


def save(store, card: dict, now: float | None = None) -> dict:
    """Append the scorecard to history; move each drill's and checkpoint's review box."""
    now = time.time() if now is None else now
    card = dict(card, at=now)
    with store.update() as state:
        for c in card["code"]:
            d = drill_entry(state, c["drill"])
            d["mocks"] = d.get("mocks", 0) + 1
            if c["passed"] and (d.get("best_mock_s") is None or c["time_s"] < d["best_mock_s"]):
                d["best_mock_s"] = c["time_s"]
            d["review"] = schedule.review(d.get("review"), c["passed"], now)
        for o in card["oral"]:
            if o.get("kind") == "kernel":
                continue  # about this submission only: kept in the scorecard, no review box
            if o.get("kind") == "review":  # counted with the bug hunts (coach/bughunt), not as a checkpoint
                from coach.bughunt import review
                review.record(state, o, now)
                continue
            record_checkpoint(state, o["id"], o["passed"], len(o["covered"]) if o["answered"] else None,
                              o["points"], o["rating"], o["answer_s"], now)
        state["mocks"] = (state.get("mocks") or [])[-99:] + [card]
    return card


class ThreadJob:
    """fn(*args) on a daemon thread (a daemon, so Ctrl-C never waits for it); .done() and .result()."""

    def __init__(self, fn, *args):
        import threading

        self._done = threading.Event()
        self._value = self._error = None
        threading.Thread(target=self._run, args=(fn, args), daemon=True).start()

    def _run(self, fn, args):
        try:
            self._value = fn(*args)
        except BaseException as e:  # handed to the caller of result()
            self._error = e
        finally:
            self._done.set()

    def done(self) -> bool:
        return self._done.is_set()

    def result(self):
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value


# ---------------------------------------------------------------- test helpers (also handy for demos)

class FakeClock:
    def __init__(self, t: float = 1000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, dt: float) -> None:
        self.t += dt


class ScriptedInput:
    """Lines (or callables, e.g. 'save a file now') at given seconds after the first poll, on a FakeClock.

    poll(timeout) moves the fake clock to the next scripted moment if it falls within the timeout, else by the
    whole timeout. After the script: EOF if eof=True, else nothing (the clocks run out).
    """

    def __init__(self, clock: FakeClock, script: list[tuple[float, object]], eof: bool = False):
        self.clock, self.script, self.eof = clock, sorted(script, key=lambda s: s[0]), eof
        self.origin: float | None = None

    def poll(self, timeout: float):
        if self.origin is None:
            self.origin = self.clock()
        while self.script:
            at, what = self.script[0]
            due = self.origin + at
            if due > self.clock() + timeout:
                break
            self.clock.t = max(self.clock(), due)
            self.script.pop(0)
            if callable(what):
                what()
                continue
            return what
        if not self.script and self.eof:
            return EOF
        self.clock.advance(timeout)
        return None


def review_questions(state: dict, k: int, avoid: list[str], rng, seconds: float) -> list[Question]:
    """K code-review questions (coach/bughunt/review.py picks the planted kernels) as the mock's Questions."""
    from coach.bughunt import review

    return [Question(cid=q.qid, text=q.text, answer=q.answer, rubric=q.rubric, kind="review", review=q,
                     drill=q.drill, seconds=seconds) for q in review.pick_reviews(state, k, avoid, rng)]
