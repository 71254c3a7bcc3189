"""`drill why-slow NAME`: a correct but slow version of a timed drill, and a question the tool checks — which of the
listed causes, and on CPU the launch, program or byte count that proves it (from the grade's evidence of the slow
version, beside the reference's); on a GPU the measured speed-up beside the reference's.

The slow versions are data, in the drill's catalog file (drills/bugs/<solution>.yaml, under `slow:`): a find/replace
patch of the reference, or `file:` a known-slow file already in the repository (tests/submissions, benchmarks/). Either
way the learner sees it without comments or docstrings (coach/bughunt/catalog.clean).
"""
from __future__ import annotations

import random
import re
import tempfile
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import drills
from coach.bughunt import catalog, hunts
from coach.bughunt.flow import tr
from coach.store import Store
from coach.ui import console
from grader.core import yamlfile
from grader.core.spec import ROOT
from grader.reporting.i18n import pick
from grader.core import catalog as texts

# The causes a learner picks from, in this order (a, b, c, ...).
CAUSES = texts.section("coach.slow_causes")  # texts.yaml
MEASURES = ("launches", "programs", "bytes", "stored", None)
EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


@dataclass(frozen=True)
class Slow:
    id: str
    solution: str
    cause: str
    measure: str | None            # what the CPU grade shows: launches per call, programs / bytes / stored at `at`
    at: object                     # the size the count is asked at (as in the drill's sizes); None for launches
    explain: dict
    find: str = ""
    replace: str = ""
    file: str = ""                 # a known-slow file (repository path) instead of a patch

    @property
    def key(self) -> str:
        return f"{Path(self.solution).stem}:{self.id}"


@lru_cache(maxsize=None)
def _load(path: Path) -> tuple:
    data = yamlfile.load(path) or {}
    solution = data.get("solution") or f"{path.stem}.py"
    return tuple(Slow(id=s["id"], solution=solution, cause=s["cause"], measure=s.get("measure"), at=s.get("at"),
                      explain=s.get("explain") or {}, find=s.get("find", ""), replace=s.get("replace", ""),
                      file=s.get("file", "")) for s in data.get("slow") or [])


def all_slow() -> list[Slow]:
    return [s for p in sorted(catalog.BUGS.glob("*.yaml")) for s in _load(p)]


def slow_for(drill: str) -> list[Slow]:
    spec = drills.get_spec(drill)
    return [s for s in all_slow() if s.solution == spec.solution_path.name]


def drills_with_slow() -> list[str]:
    return [n for n in drills.names() if slow_for(n)]


def drill_of(s: Slow) -> str:
    """The first drill whose reference the slow version rewrites."""
    return next(n for n in drills.names() if s in slow_for(n))


# The no-tensor-cores version is the matmul speed gate's known-slow file: its cause shows on a GPU only
# (benchmarks/tensor_cores.py), and its interpreter grade costs ~15 s of tl.sum that prove nothing more.
NOT_GRADED_ON_CPU = ("no-tensor-cores",)


def graded_on_cpu() -> list[Slow]:
    """The slow versions the tests (and benchmarks/verdict_fingerprints.py) grade on the CPU."""
    return [s for s in all_slow() if s.cause not in NOT_GRADED_ON_CPU]


def text(s: Slow, drill: str) -> str:
    """The slow kernel as the learner sees it: no comments, no docstrings, headed `# drill: NAME`."""
    if s.file:
        source = (ROOT / s.file).read_text(encoding="utf-8")
    else:
        reference = drills.get_spec(drill).solution_path.read_text(encoding="utf-8")
        bug = catalog.Bug(id=s.id, solution=s.solution, category="", find=s.find, replace=s.replace, part={},
                          explain={}, fix={}, rubric=[])
        source = catalog.patch(reference, bug)[0]
    lines, _ = catalog.clean(source)
    return "\n".join([f"# drill: {drill}"] + lines) + "\n"


def _size_key(size) -> tuple:
    return tuple(size) if isinstance(size, (list, tuple)) else (size,)


def measured(verdict, s: Slow) -> float | None:
    """The slow version's (or the reference's) count from a grade's evidence: None when the CPU shows nothing."""
    if s.measure is None:
        return None
    if s.measure == "launches":
        return verdict.launches
    row = next((e for e in verdict.evidence if e.get("device") == "cpu" and e.get("probe") is None
                and _size_key(e.get("size")) == _size_key(s.at)), None)
    if row is None:
        return None
    if s.measure == "programs":
        return sum(int(l.get("programs") or 0) for l in row.get("launches") or [])
    moved = row.get("bytes") or {}
    if s.measure == "stored":
        return moved.get("stored")
    return None if not moved else int(moved.get("loaded", 0)) + int(moved.get("stored", 0))


def size_words(at) -> str:
    return "n = " + format(at, ",") if isinstance(at, int) else "size " + "x".join(map(str, at))


def question(s: Slow, lang: str) -> str:
    q = tr("slow_cause_q", lang)
    if s.measure is not None:
        q += " " + tr(f"slow_measure_{s.measure}", lang, at=size_words(s.at) if s.at is not None else "")
    return q


# ------------------------------------------------------------------------------------------------ the answer

_CAUSE_LETTER = re.compile(r"^\s*\(?([a-f])\b[).:]?", re.I)


def parse(answer: str) -> tuple[str | None, float | None]:
    """(cause id, number): the cause by its letter (a-f) or its id, the first number after it."""
    from coach.mock.own_kernel import numbers

    text = answer or ""
    cause = None
    m = _CAUSE_LETTER.match(text)
    if m:
        cause = list(CAUSES)[ord(m.group(1).lower()) - ord("a")]
        text = text[m.end():]
    else:
        for cid in CAUSES:
            if re.search(re.escape(cid), text, re.I):
                cause = cid
                text = text.replace(cid, " ")
                break
    found = [n.value for n in numbers(text) if not n.optional]
    return cause, (found[0] if found else None)


def close_enough(measure: str, given: float | None, expected: float | None) -> bool:
    if expected is None or given is None:
        return False
    if measure in ("bytes", "stored"):
        return abs(given - expected) <= 0.01 * abs(expected)  # a byte count: within 1 %
    return given == expected


# ------------------------------------------------------------------------------------------------ the command

def choose(state: dict, drill: str, rng: random.Random) -> Slow:
    items = slow_for(drill)
    rec = hunts.drill_record(state, drill)
    pool = [s for s in items if s.id != rec.get("last_slow")] or items
    return rng.choice(pool)


def _grade(text_: str, drill: str, device: str):
    from grader.run import runner

    with tempfile.TemporaryDirectory(prefix="drill-slow-") as d:
        path = Path(d) / f"{drills.get_spec(drill).slug}.py"
        path.write_text(text_, encoding="utf-8")
        return runner.grade(path, drill=drill, device=device)


def run(name: str, answer: str | None, device: str, lang: str, seed: int | None = None) -> int:
    from grader.run.runner import DeviceUnavailable

    err, out = console(stderr=True), console()
    try:
        spec = drills.get_spec(name)
    except KeyError as e:
        err.print(f"drill: {e.args[0]}")
        return EXIT_USAGE
    if not slow_for(name):
        err.print(texts.text("coach.common.no_slow", lang, drill=name, have=", ".join(drills_with_slow())))
        return EXIT_USAGE
    store = Store()
    with store.update() as state:
        s = choose(state, name, random.Random(seed))
        hunts.drill_record(state, name)["last_slow"] = s.id
    shown = text(s, name)
    out.print(f"[bold]{tr('slow_title', lang, drill=name)}[/bold]  {spec.signature}")
    for i, line in enumerate(shown.splitlines(), start=1):
        out.print(f"{i:>3} | {line}", markup=False, highlight=False, soft_wrap=True)
    for i, (cid, words) in enumerate(CAUSES.items()):
        out.print(f"  {chr(ord('a') + i)}) {pick(words, lang)}", markup=False)
    out.print(question(s, lang), style="bold")
    if answer is None:
        try:
            answer = input("> ")
        except EOFError:
            err.print(texts.text("coach.common.no_answer", lang))
            return EXIT_USAGE
    cause, number = parse(answer)
    out.print(tr("slow_measuring", lang), style="dim")
    from concurrent.futures import ThreadPoolExecutor

    try:  # the two grades side by side: each is its own child process
        with ThreadPoolExecutor(max_workers=2) as pool:
            slow_job = pool.submit(_grade, shown, name, device)
            ref_job = pool.submit(_grade, spec.solution_path.read_text(encoding="utf-8"), name, device)
            slow_v, ref_v = slow_job.result(), ref_job.result()
    except DeviceUnavailable as e:
        err.print(f"drill: {e.texts[lang]}")
        return EXIT_USAGE
    return report(s, cause, number, slow_v, ref_v, lang, out, store)


def report(s: Slow, cause: str | None, number: float | None, slow_v, ref_v, lang: str, out, store=None) -> int:
    """Says whether the cause and the count are right, with the evidence of both grades. Exit 0 when both are."""
    right_cause = cause == s.cause
    expected, ref = measured(slow_v, s), measured(ref_v, s)
    if s.measure is not None and expected is None:  # the grade did not show what the catalog says it shows
        out.print(tr("slow_internal", lang, what=s.measure), style="red")
        return EXIT_USAGE
    out.print(tr("slow_cause_ok" if right_cause else "slow_cause_bad", lang, cause=pick(CAUSES[s.cause], lang)),
              style="green" if right_cause else "red")
    right_number = True
    if s.measure is not None:
        right_number = close_enough(s.measure, number, expected)
        given = "—" if number is None else format(int(number) if float(number).is_integer() else number, ",")
        out.print(tr("slow_count_ok" if right_number else "slow_count_bad", lang, given=given,
                     expected=format(int(expected), ","), ref=format(int(ref), ",") if ref is not None else "?"),
                  style="green" if right_number else "red")
    else:
        out.print(tr("slow_no_cpu_evidence", lang), style="dim")
    gpu = [(label, v.timing) for label, v in (("slow", slow_v), ("reference", ref_v)) if getattr(v, "timing", None)]
    for label, t in gpu:
        if t.get("speedup") is not None:
            out.print(tr("slow_gpu", lang, which=label, speedup=f"{t['speedup']:.2f}", at=t.get("at") or t.get("n")))
    if not gpu:
        out.print(tr("slow_gpu_none", lang), style="dim")
    out.print(pick(s.explain, lang))
    ok = right_cause and right_number
    if store is not None:
        with store.update() as state:
            rec = hunts.drill_record(state, slow_v.drill)
            rec["slow_asked"] = int(rec.get("slow_asked") or 0) + 1
            rec["slow_right"] = int(rec.get("slow_right") or 0) + int(ok)
            rec["history"] = (rec.get("history") or [])[-29:] + [
                {"at": time.time(), "slow": s.id, "passed": ok, "diagnosis": None if ok else "why-slow"}]
    return EXIT_OK if ok else EXIT_FAIL
