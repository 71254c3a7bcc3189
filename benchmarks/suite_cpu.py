"""Where the test suite's CPU time goes: a pytest plugin (benchmark, not a test).

    PYTHONPATH=.:benchmarks SUITE_CPU_OUT=/tmp/suite.json /usr/bin/time -v python -m pytest -q -p suite_cpu

The machine this project shares has up to 8 agents on 2 cores, so wall time lies; CPU time does not. For each test it
records the CPU seconds (user + system) of pytest itself, of its reaped children (RUSAGE_CHILDREN) and of its live
direct children with what they reaped (/proc: the warm grading worker and its forks, a CLI subprocess), and writes
per test and per file totals to SUITE_CPU_OUT, plus every runner.grade (file, drill, verdict, wall seconds, the child's
elapsed and phases, the thread that asked) to SUITE_CPU_OUT.grades. A grade prefetched in the background is counted
in the test that was running while it ran; the total over all tests is the suite's CPU time (compare /usr/bin/time).
Each test's row also has its start (seconds since the session's first test), and the file the load averages at the
session's start and end: with the grades' t0 that is the session's timeline (which test ran while which grades ran).

To charge every test with its own grades only, run the queue with no threads (DRILL_TEST_GRADE_THREADS=0): a test
that asks for a verdict grades it on its own thread, so nothing runs beside it (a serial run, slower by the wall).
"""
import collections
import json
import os
import resource
import threading
import time

import pytest

TICK = os.sysconf("SC_CLK_TCK")
_tests: list = []
_grades: list = []
_start: dict = {}


def _live_children_cpu() -> float:
    """utime + stime + cutime + cstime of every live direct child; a reaped one is in RUSAGE_CHILDREN instead."""
    me, total = os.getpid(), 0.0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:
            total += sum(int(x) for x in fields[11:15]) / TICK
    return total


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime + _live_children_cpu()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    cpu, wall = cpu_seconds(), time.monotonic()
    _start.setdefault("t", wall)
    yield
    _tests.append((item.nodeid, cpu_seconds() - cpu, time.monotonic() - wall, wall - _start["t"]))


def pytest_configure(config):
    _start["load"] = os.getloadavg()
    from grader.run import runner
    grade = runner.grade

    def timed_grade(path, *args, **kwargs):
        started = time.monotonic()
        v = grade(path, *args, **kwargs)
        _grades.append({"file": str(path), "drill": v.drill, "diagnosis": v.diagnosis, "passed": v.passed,
                        "wall": round(time.monotonic() - started, 3), "thread": threading.current_thread().name,
                        "child": {d: (i or {}).get("elapsed_s") for d, i in v.info.items()},
                        "phases": {d: (i or {}).get("phases") for d, i in v.info.items()}, "t0": started})
        return v
    runner.grade = timed_grade


def pytest_sessionfinish(session):
    out = os.environ.get("SUITE_CPU_OUT", "suite_cpu.json")
    files = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for nodeid, cpu, wall, *_ in _tests:
        row = files[nodeid.split("::")[0]]
        row[0] += cpu
        row[1] += wall
        row[2] += 1
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"total_cpu_s": sum(t[1] for t in _tests), "files": files, "tests": _tests,
                   "t0": _start.get("t"), "load_start": _start.get("load"), "load_end": os.getloadavg()}, f)
    with open(out + ".grades", "w", encoding="utf-8") as f:
        json.dump(_grades, f)
