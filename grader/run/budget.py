"""A time budget for interpreted grading: slow but correct kernels get a verdict, not a timeout.

Triton's interpreter runs one program instance at a time (~0.5 ms each for a simple tile, more for wide 2-D tiles
or loops). A kernel with a small BLOCK, or a grid far larger than the work, can need minutes at the largest sizes.
Before each launch we estimate its cost from what this grade has measured so far — seconds per program of the same
kernel, and seconds per element of the call — and skip the call when it would not fit in what is left of the
budget.

The seconds are not the wall clock's: they are counted (`VirtualClock`: programs run and interpreter operations
issued, times fixed per-program and per-operation costs measured once on a 2-core machine). Which calls are skipped
therefore depends only on the submission and the drill, never on how loaded the machine is: the same file gets the
same verdict every run (docs/grader.md, "Determinism"). The process's CPU time only backs it up: past CPU_SHARE of
the parent's timeout (which counts the child's CPU seconds too: grader.run.runner.out_of_time) — a machine much
slower than the calibration — no further program starts: the call is skipped, rather than the whole grade killed. Calls run smallest first and one seed of every size before any second seed, so a skipped call is always a
repeat at a size already seen or a larger size than every one that ran. Skipped calls are reported, never counted
as passes or failures.
"""
from __future__ import annotations

import time


class OverBudget(BaseException):
    """Raised before a launch that would not fit the budget. A BaseException, so a learner's `except Exception`
    around the launch does not swallow it."""

    learner_facing = True

    def __init__(self, estimate_s: float, left_s: float, programs: int | None):
        super().__init__(f"estimated {estimate_s:.1f} s, {left_s:.1f} s left")
        self.estimate_s, self.left_s, self.programs = estimate_s, left_s, programs


# Seconds per program before anything is measured: the interpreter's rate for a simple 1-D tile (FACTS.md).
DEFAULT_PROGRAM_S = 0.0006
MIN_PROGRAMS = 8
# Once a grade has a failure, more evidence only ranks the causes: spend at most this much more.
AFTER_FAILURE_S = 8.0


class Budget:
    def __init__(self, seconds: float, clock=time.monotonic):
        self.clock = clock
        self.deadline = clock() + seconds
        self.seconds = seconds
        self.per_program: dict[str, tuple] = {}  # kernel -> (programs, seconds) of its largest launch so far
        self.largest = (0, 0.0)                   # (elements, seconds) of the largest call so far
        self.numel = 0                            # elements of the call now running
        self.call_started = 0.0
        self.failed = False

    def left(self) -> float:
        return self.deadline - self.clock()

    def start_call(self, numel: int) -> None:
        """Raise OverBudget if a call this size, scaled from the largest one so far, would not fit. Kernels whose
        programs loop (a capped grid) cost in proportion to the elements, not to the programs."""
        self.numel = max(int(numel), 1)
        self.call_started = self.clock()
        done, spent = self.largest
        if done >= 1000 and self.numel > done:
            estimate = spent * self.numel / done
            if estimate > self.left():
                raise OverBudget(estimate, self.left(), None)

    def end_call(self) -> None:
        if self.numel >= self.largest[0]:
            self.largest = (self.numel, self.clock() - self.call_started)

    def rate(self, kernel: str) -> float:
        """Seconds per program of `kernel`, from its largest launch: small launches are dominated by the first
        launch's one-off cost (the interpreter rewrites the kernel's source), so below MIN_PROGRAMS the default."""
        programs, seconds = self.per_program.get(kernel, (0, 0.0))
        return seconds / programs if programs >= MIN_PROGRAMS else DEFAULT_PROGRAM_S

    def check_launch(self, kernel: str, programs: int | None) -> float:
        """Raise OverBudget if this launch would not fit; returns the launch's start time."""
        if programs:
            estimate = programs * self.rate(kernel)
            if estimate > self.left():
                raise OverBudget(estimate, self.left(), programs)
        return self.clock()

    def end_launch(self, kernel: str, programs: int | None, started: float) -> None:
        if programs and programs >= self.per_program.get(kernel, (0, 0.0))[0]:
            self.per_program[kernel] = (programs, self.clock() - started)

    def saw_failure(self) -> None:
        """A failing call: the verdict is FAIL already; cap the remaining spend."""
        if not self.failed:
            self.failed = True
            self.deadline = min(self.deadline, self.clock() + AFTER_FAILURE_S)


# Calibration (benchmarks/interp_cost.py: 260 calls of the drills' reference solutions and three small-block
# variants, CPU seconds per call, this project's 2-core machine, 2026-12-01, import floor 7.1 s in that run: the
# machine was shared and loaded, which is why the fit uses CPU time, not wall time). The non-negative least-squares
# fit: 3.0e-5 s per interpreter operation (a builder call: load, store, arithmetic, reduction, dot), 4.2e-9 s per
# element those operations produce, 8.7e-9 s per multiply-add of tl.dot, 0 per program; calls of 0.1 s and more
# predicted within 0.48x-1.28x (median 0.93x). The costs here are 1.3x the fit, so that a budget spent in counted
# seconds is rarely longer in real ones.
COSTS = {"programs": 0.0, "ops": 0.00004, "elems": 0.0000000055, "flops": 0.000000011}


class VirtualClock:
    """A clock that advances by the interpreter's work, not by time: the counts below times COSTS. Installed once
    per grading process (a fork of the warm worker installs its own)."""

    def __init__(self, cpu_deadline: float | None = None):
        self.counts = dict.fromkeys(COSTS, 0)
        self.cpu_deadline = cpu_deadline  # time.process_time() past which a program does not start (OverBudget)

    def __call__(self) -> float:
        return sum(COSTS[k] * v for k, v in self.counts.items())

    def install(self) -> "VirtualClock":
        from triton.runtime import interpreter

        cls = interpreter.InterpreterBuilder
        counts, clock = self.counts, self
        for name in [n for n in dir(cls) if n.startswith("create_") or n == "set_grid_idx"]:
            orig = getattr(cls, name)
            if not callable(orig) or getattr(orig, "_drill_counted", None) is not None:
                continue
            if name == "set_grid_idx":
                def counted(self, *args, _orig=orig, **kwargs):
                    counts["programs"] += 1
                    if clock.cpu_deadline is not None and counts["programs"] % 16 == 0 \
                            and time.process_time() > clock.cpu_deadline:  # the safety net, even inside a launch
                        raise OverBudget(0.0, 0.0, None)
                    return _orig(self, *args, **kwargs)
            elif name == "create_dot":
                def counted(self, a, b, *args, _orig=orig, **kwargs):
                    counts["ops"] += 1
                    shape_a, shape_b = getattr(a.data, "shape", ()), getattr(b.data, "shape", ())
                    if len(shape_a) >= 2 and len(shape_b) >= 2:
                        counts["flops"] += int(a.data.size) * int(shape_b[-1])
                    return _orig(self, a, b, *args, **kwargs)
            else:
                def counted(self, *args, _orig=orig, **kwargs):
                    counts["ops"] += 1
                    out = _orig(self, *args, **kwargs)
                    counts["elems"] += getattr(getattr(out, "data", None), "size", 1) or 1
                    return out
            counted._drill_counted = orig
            setattr(cls, name, counted)
        return self
