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

T = {
    "header": {"en": "Mock interview: {n} drill(s), {minutes} of coding, then {q} question(s), {oral} each "
                     "(and first, if your code passes, questions about your own kernel).",
               "zh": "模拟面试：{n} 道编程题，限时 {minutes}；之后 {q} 道口述题，每题 {oral}（代码通过的话，先问关于你自己 kernel 的问题）。"},
    "folder": {"en": "Your files are in {dir}. Edit them in your editor: every save is graded here.",
               "zh": "你的文件在 {dir}。用编辑器修改：每次保存都会在这里自动评测。"},
    "enter_submit": {"en": "Press Enter to submit your code.", "zh": "按回车提交代码。"},
    "status": {"en": "{left} left | {files} | Enter = submit", "zh": "剩余 {left} | {files} | 回车 = 提交"},
    "not_graded": {"en": "not graded", "zh": "未评测"},
    "grading": {"en": "grading {file} …", "zh": "正在评测 {file} …"},
    "grading_short": {"en": "grading …", "zh": "评测中 …"},
    "graded_pass": {"en": "[{at}] {file}: PASS (attempt {n}, graded in {s:.1f} s)",
                    "zh": "[{at}] {file}：通过（第 {n} 次，评测 {s:.1f} 秒）"},
    "graded_fail": {"en": "[{at}] {file}: FAIL ({diag}, attempt {n}) {what}",
                    "zh": "[{at}] {file}：未通过（{diag}，第 {n} 次）{what}"},
    "all_pass": {"en": "Everything passes. Press Enter to submit (or keep polishing).",
                 "zh": "全部通过。按回车提交（或者继续打磨）。"},
    "grade_error": {"en": "[{at}] {file}: could not grade ({error})", "zh": "[{at}] {file}：无法评测（{error}）"},
    "submitted_enter": {"en": "Code submitted after {used}.", "zh": "代码已提交，用时 {used}。"},
    "submitted_time": {"en": "Time is up: code submitted.", "zh": "时间到：代码已自动提交。"},
    "submitted_eof": {"en": "Input closed: code submitted.", "zh": "输入已关闭：代码已提交。"},
    "oral": {"en": "Oral round. Say it as you would to an interviewer.",
             "zh": "口述环节。像对面试官那样讲出来。"},
    "question": {"en": "Question {i}/{n} ({oral}): {text}", "zh": "第 {i}/{n} 题（{oral}）：{text}"},
    "own_kernel": {"en": "About your own kernel ({drill}): type the numbers; the tool checks them against your grade.",
                   "zh": "关于你自己的 kernel（{drill}）：输入数字，工具会用你的评测结果核对。"},
    "part_ok": {"en": "  ✓ {point}: {expected}", "zh": "  ✓ {point}：{expected}"},
    "part_bad": {"en": "  ✗ {point}: {expected}", "zh": "  ✗ {point}：应为 {expected}"},
    "unexplained": {"en": "  You also said {numbers}: give one figure per part.",
                    "zh": "  你还说了 {numbers}：每一问只给一个数。"},
    "kernel_pass": {"en": "Right: the numbers match your kernel.", "zh": "正确：数字和你的 kernel 一致。"},
    "kernel_fail": {"en": "Not quite: the worked answer below shows the arithmetic.",
                    "zh": "不完全对：下面的参考答案给出了计算过程。"},
    "working": {"en": "Working:", "zh": "计算过程："},
    "wrong_claim": {"en": "Wrong: {claim}", "zh": "错误：{claim}"},
    "why": {"en": "  why: {why}", "zh": "  原因：{why}"},
    "you_said": {"en": "  you said: “{quote}”", "zh": "  你说的是：“{quote}”"},
    "how_answer": {"en": "Type your answer and press Enter — or say it aloud, then just press Enter.",
                   "zh": "输入你的回答后按回车；也可以先大声说出来，然后直接按回车。"},
    "warning_code": {"en": "{left} s of coding left.", "zh": "编程时间还剩 {left} 秒。"},
    "warning_q": {"en": "{left} s left for this question.", "zh": "本题还剩 {left} 秒。"},
    "timed_out": {"en": "Time is up for this question.", "zh": "本题时间到。"},
    "model": {"en": "Model answer:", "zh": "参考答案："},
    "rubric": {"en": "Key points ({c}/{n} found in your typed answer):", "zh": "要点（你输入的回答覆盖了 {c}/{n}）："},
    "rubric_aloud": {"en": "Key points (check them against what you said):", "zh": "要点（对照你说的内容自查）："},
    "rate": {"en": "Rate yourself 1-5 and press Enter:", "zh": "给自己打分 1-5，然后按回车："},
    "rate_invalid": {"en": "Type a number from 1 to 5.", "zh": "请输入 1 到 5 之间的数字。"},
    "scorecard": {"en": "Scorecard", "zh": "成绩单"},
    "saved": {"en": "Saved to your history: `drill progress` shows it.", "zh": "已存入历史记录：`drill progress` 可以查看。"},
    "abandoned": {"en": "Mock interview abandoned; nothing saved.", "zh": "模拟面试已中止；没有保存。"},
    "empty": {"en": "Nothing was graded, answered or rated: not saved as an interview (your history and reviews are "
                    "unchanged).",
              "zh": "没有评测、回答或自评任何内容：不作为一次面试保存（历史记录和复习计划不变）。"},
    "keep_typing": {"en": "(keep typing: what you typed so far is kept)", "zh": "（继续输入：已输入的内容会保留）"},
    "warming": {"en": "grader warming up (importing torch and Triton once)", "zh": "评测进程预热中（只导入一次 torch 和 Triton）"},
    "clock_default": {"en": "The coding clock is {minutes}: {drill} is a longer drill (a tensor-core kernel), so it "
                            "gets its own default ({default} min; --minutes sets another).",
                      "zh": "编程限时 {minutes}：{drill} 是较长的题（tensor core kernel），有自己的默认时长（{default} 分钟；"
                            "--minutes 可另设）。"},
    "clock_short": {"en": "Note: {drill} usually takes {default} min in an interview; your clock is {minutes} "
                          "(--minutes). Drop --minutes for its default.",
                    "zh": "注意：{drill} 在面试中通常要 {default} 分钟；你的限时是 {minutes}（--minutes）。去掉 --minutes "
                          "即用它的默认时长。"},
    "code_cols": {"en": ("drill", "result", "time used", "attempts", "diagnosis", "grade s"),
                  "zh": ("题目", "结果", "用时", "尝试次数", "诊断", "评测秒数")},
    "oral_cols": {"en": ("question", "points covered", "answer time", "self-rating", "result"),
                  "zh": ("问题", "覆盖要点", "回答用时", "自评", "结果")},
    "pass": {"en": "PASS", "zh": "通过"},
    "fail": {"en": "FAIL", "zh": "未通过"},
    "aloud": {"en": "(aloud)", "zh": "（口述）"},
}


def tr(key: str, lang: str, **kw):
    v = pick(T[key], lang) if not isinstance(T[key].get(lang), tuple) else T[key][lang]
    return v.format(**kw) if kw else v


def mmss(seconds: float) -> str:
    s = max(0, int(round(seconds)))
    return f"{s // 60}:{s % 60:02d}"


def human(seconds: float, lang: str) -> str:
    s = int(round(seconds))
    if s % 60 == 0 and s >= 60:
        return f"{s // 60} 分钟" if lang == "zh" else f"{s // 60} min"
    return f"{s} 秒" if lang == "zh" else f"{s} s"


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
        err.print(f"drill: {e}")
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
