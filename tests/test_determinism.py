"""Determinism (issue 17, item 8): the same file gets the same verdict on every run, whatever the machine's load.

The cause found: the interpreter's time budget skipped calls by the wall clock (seconds per program measured while
grading, and a timeout in wall seconds), so on a loaded machine a slow kernel lost its largest sizes — and with
them the failure only they show — or became `timeout`. Now the budget counts the interpreter's work
(grader.run.budget.VirtualClock) and the parent's timeout counts the child's CPU seconds
(grader.run.runner.out_of_time). These borderline files spend the whole budget: each is graded quiet, then while
three busy processes compete for the two cores, and must get the same verdict, cases and skipped calls.
"""
import subprocess
import sys

import pytest

from grader.run import budget as budget_mod
from grader.run import runner

KERNEL = '''# drill: vector-add
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < {bound}
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def add(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    add_kernel[(triton.cdiv(n, 16),)](x, y, out, n, BLOCK=16)
    return out
'''

BORDERLINE = {  # (small_block_pass, "n": right everywhere, behaves the same; left out to keep the suite short)
    "wrong_past_65536": "tl.minimum(n, 65536)",  # wrong only at n=100000, the size a budget cut would drop;
}                                                 # 6250 programs there: the budget decides what else runs
# (BLOCK = 16: the grade stops after its first failing seed, so the budget must bind within the first round)


def fingerprint(v) -> dict:
    return {"passed": v.passed, "diagnosis": v.diagnosis, "line": v.line,
            "cases": [(str(c["size"]), c["calls"], c["failed"], tuple(c["categories"])) for c in v.cases],
            "skipped": sorted((str(c["size"]), c["seed"], c["call"]) for c in v.skipped)}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(BORDERLINE))
def test_a_borderline_file_gets_the_same_verdict_quiet_and_under_load(name, tmp_path):
    f = tmp_path / f"{name}.py"
    f.write_text(KERNEL.format(bound=BORDERLINE[name]), encoding="utf-8")
    quiet = fingerprint(runner.grade(f, device="cpu", timeout=8))
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(3)]
    try:
        loaded = fingerprint(runner.grade(f, device="cpu", timeout=8))
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    assert quiet == loaded
    assert quiet["skipped"], "the file must spend the whole budget, or it tests nothing"
    assert quiet["diagnosis"] != "timeout"


def test_the_budget_decides_on_counted_work_not_on_time():
    """Two budgets fed the same counts decide alike however long the work really took."""
    decisions = []
    for slow in (False, True):
        clock = budget_mod.VirtualClock()
        b = budget_mod.Budget(1.0, clock=clock)
        skipped = []
        for programs in (10, 100, 1000, 10000, 100000):
            try:
                started = b.check_launch("k", programs)
            except budget_mod.OverBudget:
                skipped.append(programs)
                continue
            clock.counts["ops"] += programs * 17  # the work of the launch, counted
            if slow:
                import time
                time.sleep(0.05)  # real time passes; counted time does not care
            b.end_launch("k", programs, started)
        decisions.append(skipped)
    assert decisions[0] == decisions[1] and decisions[0]


def test_the_timeout_counts_cpu_seconds_and_idle_time():
    t0 = 100.0
    starved = [(t0 + 0.25 * i, 0.02 * i) for i in range(1, 200)]  # 8 % of a core for 50 s: slow, still working
    assert not runner.out_of_time(starved, timeout=20, started=t0)
    spinning = [(t0 + 0.25 * i, 0.25 * i) for i in range(1, 90)]  # a hung kernel burns a core
    assert runner.out_of_time(spinning, timeout=20, started=t0)
    sleeping = [(t0 + 0.25 * i, 1.0) for i in range(1, 90)]  # waits on a lock: idle past the timeout
    assert runner.out_of_time(sleeping, timeout=20, started=t0)
    assert not runner.out_of_time(sleeping[:70], timeout=20, started=t0)  # idle, but not past the timeout yet
    assert runner.out_of_time([(t0 + 81, 1.0)], timeout=20, started=t0)  # the hard cap
    # 16 threads of float64 reference work (a GPU host's torch): 4 CPU seconds each wall second, charged as 1
    threaded = [(t0 + 0.25 * i, 1.0 * i) for i in range(1, 60)]  # 15 s of wall clock, 59 CPU seconds
    assert not runner.out_of_time(threaded, timeout=20, started=t0)
    assert runner.charged_seconds(threaded, t0) <= 15.0
    assert runner.out_of_time(threaded + [(t0 + 0.25 * i, 1.0 * i) for i in range(60, 82)], timeout=20, started=t0)
