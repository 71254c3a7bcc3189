"""The terminal side of `drill mock`: stdin without blocking the clock, a countdown line, event lines, the scorecard.

All decisions live in coach/mock/interview.py; this file only reads lines and prints.
"""
from __future__ import annotations

import os
import random
import select
import sys
import time
from datetime import datetime
from pathlib import Path

from rich.table import Table

import drills
from grader.reporting.i18n import pick
from grader.reporting.texts import drill_texts
from coach.mock import interview as M
from coach.store import Store, record_grade
from coach.ui import console, say
from grader.core import catalog

T = catalog.section("coach.mock")  # texts.yaml


def tr(key: str, lang: str, **kw):
    v = T[key][lang]
    return v.format(**kw) if kw else v


def mmss(seconds: float) -> str:
    s = max(0, int(round(seconds)))
    return f"{s // 60}:{s % 60:02d}"


def human(seconds: float, lang: str) -> str:
    s = int(round(seconds))
    if s % 60 == 0 and s >= 60:
        return catalog.text("coach.time.minutes", lang, n=s // 60)
    return catalog.text("coach.time.seconds", lang, n=s)


class StdinInput:
    """Lines from a file descriptor without blocking: select() with a timeout, os.read, our own line buffer.

    Reading the fd directly (not sys.stdin's buffer) matters for pipes: a buffered readline would swallow several
    lines at once and select() would then say "nothing to read" while lines wait in Python's buffer.
    """

    def __init__(self, fd: int | None = None):
        self.fd = sys.stdin.fileno() if fd is None else fd
        self.buf = b""
        self.closed = False

    def poll(self, timeout: float):
        if b"\n" in self.buf:
            return self._line()
        if self.closed:
            if self.buf:
                line, self.buf = self.buf, b""
                return line.decode("utf-8", "replace")
            time.sleep(timeout)
            return M.EOF
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return None
        data = os.read(self.fd, 4096)
        if not data:
            self.closed = True
            return self.poll(0)
        self.buf += data
        return self._line() if b"\n" in self.buf else None

    def _line(self) -> str:
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode("utf-8", "replace").rstrip("\r")


class TerminalUI:
    """Listens to the mock's events and prints; keeps one countdown line at the bottom on a terminal."""

    def __init__(self, lang: str, out=None, warming=None):
        self.lang = lang
        self.out = out or sys.stdout
        self.tty = self.out.isatty()
        self.con = console()
        self.status_text = ""
        self.last_plain_status = None
        self.warming = warming or (lambda: False)  # True while the warm grader is still importing

    # output helpers
    def clear_status(self):
        if self.tty and self.status_text:
            self.out.write("\r\x1b[K")
            self.out.flush()
            self.status_text = ""

    def say(self, text: str = "", style: str | None = None):
        self.clear_status()
        say(self.con, text, style)

    def status(self, mock: M.Mock):
        if mock.phase != M.CODE:
            self.clear_status()
            return
        files = "  ".join(f"{t.path.name}: " + (tr("grading_short", self.lang) if t.job is not None else
                                                  tr("pass", self.lang) if t.passed else
                                                  (t.diagnosis if t.attempts else tr("not_graded", self.lang)))
                          for t in mock.tasks)
        text = tr("status", self.lang, left=mmss(mock.code_left()), files=files)
        if self.warming():
            text += " | " + tr("warming", self.lang)
        if self.tty:
            if text != self.status_text:
                self.out.write("\r\x1b[K" + text)
                self.out.flush()
                self.status_text = text
        else:  # a pipe or a log: one status line every 30 s of the clock
            mark = int(mock.code_left()) // 30
            if mark != self.last_plain_status:
                self.last_plain_status = mark
                self.out.write(text + "\n")
                self.out.flush()

    # events
    def __call__(self, kind: str, data: dict, mock: M.Mock):
        lang = self.lang
        at = mmss(mock.elapsed()) if mock.t0 is not None else "0:00"
        if kind == "code-start":
            for t in mock.tasks:
                texts = drill_texts(t.drill)
                self.say(f"{pick(texts.get('title'), lang) or t.drill}  ({t.path.name})", style="bold")
                self.say(pick(texts.get("task"), lang))
            self.say(tr("enter_submit", lang), style="dim")
        elif kind == "grading":
            if self.tty and mock.background is None:
                self.clear_status()
                self.out.write(tr("grading", lang, file=data["task"].path.name))
                self.out.flush()
                self.status_text = "grading"
        elif kind == "graded":
            t, v = data["task"], data["verdict"]
            if v.passed:
                self.say(tr("graded_pass", lang, at=at, file=t.path.name, n=t.attempts, s=v.elapsed_s or 0),
                         style="green")
                if all(x.passed for x in mock.tasks):
                    self.say(tr("all_pass", lang), style="bold")
            else:
                self.say(tr("graded_fail", lang, at=at, file=t.path.name, diag=t.diagnosis, n=t.attempts,
                            what=self._what(v)), style="red")
        elif kind == "grade-error":
            self.say(tr("grade_error", lang, at=at, file=data["task"].path.name, error=data["error"]), style="red")
        elif kind == "submitted":
            how = data["how"]
            self.say(tr(f"submitted_{how}", lang, used=mmss(mock.used_s or 0)), style="bold")
            if mock.questions:
                self.say("")
                self.say(tr("oral", lang), style="bold")
        elif kind == "question":
            q = data["q"]
            self.say("")
            if q.kind == "kernel":
                self.say(tr("own_kernel", lang, drill=q.drill), style="dim")
            if q.kind == "review":  # the buggy kernel, numbered (coach/bughunt/review.py)
                from coach.bughunt import review
                for line in review.shown(q.review, lang):
                    self.say(line)
            self.say(tr("question", lang, i=data["index"] + 1, n=len(mock.questions),
                        oral=human(q.seconds or mock.oral_seconds, lang), text=pick(q.text, lang)), style="bold cyan")
            self.say(tr("how_answer", lang), style="dim")
        elif kind == "time-warning":
            key = "warning_code" if data["which"] == "code" else "warning_q"
            if self.tty and mock.phase in (M.ASK, M.RATE):
                # The learner may be typing on the current line: the warning goes on a line of its own below it
                self.clear_status()
                self.out.write("\n")
                self.out.flush()
                self.say(tr(key, lang, left=data["left"]) + " " + tr("keep_typing", lang), style="yellow")
            else:
                self.say(tr(key, lang, left=data["left"]), style="yellow")
        elif kind == "review":
            q = data["q"]
            if q.timed_out:
                self.say(tr("timed_out", lang), style="yellow")
            if q.kind == "kernel":
                self.review_kernel(q)
            elif q.kind == "review":
                from coach.bughunt import review
                review.render_result(self.say, q, lang)
                if not q.answer_text:  # said aloud: rated like any question
                    self.say(tr("rate", lang), style="bold")
            else:
                self.review_checkpoint(q)
        elif kind == "rate-invalid":
            self.say(tr("rate_invalid", lang), style="yellow")

    def review_checkpoint(self, q: M.Question) -> None:
        lang = self.lang
        self.say(tr("model", lang), style="bold")
        self.say(pick(q.answer, lang))
        if q.answer_text:
            self.say(tr("rubric", lang, c=len(q.covered), n=len(q.rubric)), style="bold")
        else:
            self.say(tr("rubric_aloud", lang), style="bold")
        for i, p in enumerate(q.rubric):
            mark = ("✓" if i in q.covered else "✗") if q.answer_text else "·"
            self.say(f"  {mark} {pick(p.get('point'), lang)}")
        for w in getattr(q.score, "wrong_claims", None) or []:
            claim, why = M.scoring.claim_text(q.cid, w["id"], lang) or (w["claim"], w["why"])
            self.say(tr("wrong_claim", lang, claim=claim), style="red")
            if w.get("quote"):
                self.say(tr("you_said", lang, quote=w["quote"]), style="dim")
            self.say(tr("why", lang, why=why))
        self.say(M.verdict.review_line(q.score, bool(q.answer_text), lang), style="dim")
        self.say(tr("rate", lang), style="bold")

    def review_kernel(self, q: M.Question) -> None:
        lang = self.lang
        if q.answer_text:
            ok = q.scored_pass
            self.say(tr("kernel_pass" if ok else "kernel_fail", lang), style="green" if ok else "red")
            for part, p in zip(q.kernel.parts, q.score.points):
                key = "part_ok" if p["found"] else "part_bad"
                self.say(tr(key, lang, point=pick(part.label, lang), expected=p["expected"]))
            if q.score.unexplained:
                self.say(tr("unexplained", lang, numbers=", ".join(q.score.unexplained)), style="yellow")
        self.say(tr("working", lang), style="bold")
        self.say(pick(q.answer, lang))
        if not q.answer_text:
            self.say(tr("rate", lang), style="bold")

    def _what(self, v) -> str:
        try:
            from grader.reporting.report import explain
            return explain(v, self.lang)[0]
        except Exception:
            return ""


def scorecard_tables(card: dict, lang: str) -> list[Table]:
    """The code table and the oral table of one scorecard (also used by `drill progress`). Drill names and
    checkpoint ids are never cut (they are typed back into `drill checkpoints ID`): their column is as wide as the
    longest, and the other columns wrap."""
    code = Table(title=tr("scorecard", lang))
    for i, col in enumerate(tr("code_cols", lang)):
        code.add_column(col, no_wrap=i == 0, min_width=max([len(c.get("drill", "")) for c in card.get("code", [])] +
                                                            [len(col)]) if i == 0 else None)
    for c in card.get("code", []):
        code.add_row(c["drill"], tr("pass", lang) if c["passed"] else tr("fail", lang), mmss(c["time_s"] or 0),
                     str(c["attempts"]), c["diagnosis"] or "", "" if c.get("grade_s") is None else f"{c['grade_s']:.1f}")
    oral = Table()
    widest = max([len(o["id"]) + (len(o.get("drill", "")) + 3 if o.get("kind") == "kernel" else 0)
                  for o in card.get("oral", [])] + [8])
    for i, col in enumerate(tr("oral_cols", lang)):
        oral.add_column(col, no_wrap=i == 0, min_width=widest if i == 0 else None)
    for o in card.get("oral", []):
        covered = f"{len(o['covered'])}/{o['points']}" if o["answered"] else tr("aloud", lang)
        name = o["id"] if o.get("kind") != "kernel" else f"{o['id']} ({o.get('drill', '')})"
        oral.add_row(name, covered, "" if o["answer_s"] is None else mmss(o["answer_s"]),
                     "-" if o["rating"] is None else f"{o['rating']}/5",
                     (tr("pass", lang) if o.get("passed") else tr("fail", lang))
                     + (f" ({pick(o['rule'], lang)})" if o.get("rule") else ""))
    from coach.bughunt import review
    planted = review.scorecard_table(card, lang)
    return [code, oral] + ([planted] if planted is not None else [])


def clock_note(names: list[str], asked: float | None, minutes: float, lang: str) -> str | None:
    """Said when the drills are dealt: a tensor-core drill's own longer clock, or a clock much shorter than it."""
    if not names:
        return None
    longest = max(names, key=lambda n: drills.get_spec(n).mock_minutes or 0)
    default = drills.get_spec(longest).mock_minutes
    if default and asked is None:
        return tr("clock_default", lang, minutes=human(minutes * 60, lang), drill=longest, default=default)
    if default and asked is not None and asked < default / 2:
        return tr("clock_short", lang, minutes=human(minutes * 60, lang), drill=longest, default=default)
    return None


def default_folder() -> Path:
    return Path.cwd() / f"mock-{datetime.now().strftime('%Y%m%d-%H%M%S')}"


def interview(minutes: float, n_drills: int, n_questions: int, seed: int | None, folder: Path | None,
              oral_seconds: float, device: str, lang: str, kernel_questions: int = 1, reviews: int = 0,
              review_seconds: float = 300.0) -> int:
    """`drill mock`: 0 when the interview ran to its scorecard, 2 on a usage problem, 130 on Ctrl-C."""
    from grader.run import runner
    from grader.run import worker
    from grader.run.proc import end_all

    err = console(stderr=True)
    store = Store()
    state = store.read()
    for w in store.warnings:
        err.print(w, style="yellow")
    now = time.time()
    names = M.pick_drills(state, drills.names(), n_drills, seed, now)
    qids = M.pick_questions(state, names, n_questions, seed, now)
    asked_minutes = minutes
    minutes = M.coding_minutes(names, minutes)
    folder = Path(folder) if folder else default_folder()
    try:
        tasks, questions = M.prepare(folder, names, qids)
    except M.MockError as e:
        err.print(f"drill: {e.texts[lang]}")
        return 2
    # the code-review round (coach/bughunt/review.py): before the checkpoint questions
    questions[:0] = M.review_questions(state, reviews, names, random.Random(seed), review_seconds)

    def grader(path, drill):
        v = runner.grade(path, drill=drill, device=device)
        try:
            record_grade(store, v)
        except OSError:
            pass
        return v

    def warming() -> bool:
        w = worker.current("cpu")
        return w is not None and not w.ready.is_set()

    ui = TerminalUI(lang, warming=warming)
    mock = M.Mock(tasks, questions, code_seconds=minutes * 60, oral_seconds=oral_seconds, clock=time.monotonic,
                  grader=grader, listener=ui, background=M.ThreadJob, kernel_questions=kernel_questions,
                  rng=random.Random(seed))
    ui.say(tr("header", lang, n=len(tasks), minutes=human(minutes * 60, lang), q=len(questions),
              oral=human(oral_seconds, lang)), style="bold")
    ui.say(tr("folder", lang, dir=folder))
    note = clock_note(names, asked_minutes, minutes, lang)
    if note:
        ui.say(note, style="yellow")
    try:
        with worker.warm():  # every save is graded in a fork of one warm process, ended on the way out
            card = M.run(mock, StdinInput(), poll_s=0.25, on_tick=ui.status)
    except KeyboardInterrupt:
        end_all()  # grades still running on their threads
        ui.say("")
        ui.say(tr("abandoned", lang), style="yellow")
        return 130
    if M.empty_session(card):  # `drill mock < /dev/null`: no interview happened, nothing to review
        ui.say("")
        ui.say(tr("empty", lang), style="yellow")
        return 1
    card = M.save(store, dict(card, dir=str(folder)))
    ui.say("")
    for table in scorecard_tables(card, lang):
        ui.con.print(table)
    ui.say(tr("saved", lang), style="dim")
    return 0
