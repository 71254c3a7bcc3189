"""The parent side of a grade: static checks, the child process(es) with a timeout, and the merged verdict.

The parent never imports the learner's file. On a GPU the CUDA run and an interpreter run (lane-exact memory
checks on fewer seeds) go side by side, so CPU and CUDA verdicts rest on the same memory evidence. Each run is a
cold `python -m grader.run.child`, or, inside `grader.run.worker.warm()`, a fork of a warm process (same code, same
isolation, no torch import).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from drills import get_spec
from grader.core import catalog
from grader.families import registry
from grader.run import worker
from grader.run import proc as procs
from grader.run.proc import bytecode_env, child_env, kill_group, nvidia_driver_present
from grader.judge.diagnose import DECISIVE, memory_evidence, overall
from grader.intake.static import inspect_file, kernel_body_line


class UnnamedDrill(catalog.TextError, KeyError):
    """The file has no `# drill: NAME` line and no --drill was given: a usage error (exit code 2)."""


class DeviceUnavailable(catalog.TextError):
    """--device cuda on a machine where torch has no CUDA: a usage error (exit code 2)."""


@dataclass
class ChildRun:
    device: str
    returncode: int | None = None
    timed_out: bool = False
    result: dict | None = None
    output: str = ""          # the learner's prints and anything the child wrote
    elapsed_s: float = 0.0
    stage: str = ""           # what the child said it was doing (<out>.progress) when it was killed
    counted_s: float | None = None  # killed on its CPU seconds: those charged (runner.charged_seconds), not the wall


@dataclass
class Verdict:
    drill: str
    file: str
    device: str
    passed: bool
    diagnosis: str | None
    detail: dict = field(default_factory=dict)
    line: int | None = None
    hole: str | None = None
    checks: list = field(default_factory=list)
    cases: list = field(default_factory=list)
    focus: dict | None = None          # the call the report shows in full (tile map, first bad element)
    others: list = field(default_factory=list)  # other categories seen
    runs: list = field(default_factory=list)
    source_lines: list = field(default_factory=list)
    info: dict = field(default_factory=dict)
    elapsed_s: float = 0.0
    launches: int | None = None        # most Triton launches seen in one call
    bytes_moved: dict | None = None    # interpreter: {n, loaded, stored, total} of the largest counted call
    bytes_model: dict | None = None    # the drill's {n, fused, eager} at that n
    timing: dict | None = None         # CUDA speed gate (grader.speed.timing), fused drills only
    device_limits: dict | None = None  # a device's launch limits and their evidence (grader.families.limits)
    evidence: list = field(default_factory=list)  # per (device, size): what the first call did (size_evidence)
    skipped: list = field(default_factory=list)   # interpreted calls left out to stay within the time budget
    unchecked: list = field(default_factory=list)  # interpreted calls stopped by a CPU limitation (not graded)
    internal: dict | None = None       # drill's own machinery failed: no verdict (grader.core.faults), exit 2

    @property
    def graded(self) -> bool:
        """False when drill could not reach a verdict: an internal error, or nothing could be checked on CPU."""
        return self.diagnosis not in NO_VERDICT

    def to_json(self) -> dict:
        return {**{k: v for k, v in self.__dict__.items() if k != "source_lines"}, "graded": self.graded}


NO_VERDICT = ("internal", "not-checked")  # outcomes that are neither PASS nor FAIL (exit code 2)


def start_child(path: Path, drill: str, device: str, seed: int, quick: bool, workdir: str, timeout: float):
    """One grading process: a fork of the warm worker when one is running (grader.run.worker), else a cold
    `python -m grader.run.child`. Either way its own process group, the log as stdout/stderr, the same result file,
    and registered with grader.run.proc so that end_all() reaches it."""
    out = os.path.join(workdir, f"result-{device}.json")
    log = open(os.path.join(workdir, f"log-{device}.txt"), "w+b")
    args = ["--file", str(path), "--drill", drill, "--device", device, "--seed", str(seed), "--out", out,
            "--timeout", str(timeout)] + (["--quick"] if quick else [])
    env = child_env(**bytecode_env())
    progress = progress_fd() if device == "cuda" else None  # timing progress goes to our stderr, live
    try:
        warm = worker.current(device)
        proc = warm.spawn(args, str(path.parent), env, log.fileno(), progress) if warm is not None else None
        if proc is not None:
            procs.LIVE.add(proc)
        else:
            if progress is not None:
                env["DRILL_PROGRESS_FD"] = str(progress)
            proc = procs.spawn([sys.executable, "-m", "grader.run.child"] + args, cwd=str(path.parent), env=env,
                               stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                               pass_fds=(progress,) if progress is not None else ())
    except BaseException:
        log.close()
        raise
    finally:
        if progress is not None:
            os.close(progress)
    return proc, out, log


def progress_fd() -> int | None:
    try:
        return os.dup(sys.stderr.fileno())
    except (AttributeError, OSError, ValueError):
        return None  # no real stderr (captured in tests): no live progress


POLL_S = 0.25
IDLE_WINDOW_S = 1.0   # a child that used under IDLE_SHARE of one core over this long is waiting, not working
IDLE_SHARE = 0.05
HARD_FACTOR = 4       # past this many times the timeout (wall clock) a child is killed whatever it is doing


def child_cpu_seconds(pid: int | None) -> float | None:
    """CPU seconds a process has used (user + system), from /proc; None where there is no /proc."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def charged_seconds(samples: list, started: float) -> float:
    """The CPU seconds charged to a child: at most one core's worth per second of wall clock. A child whose torch runs
    many threads (float64 references on a 16-core GPU host) or whose CUDA synchronisation spins would otherwise burn
    through its timeout faster than the wall clock; a loaded machine still slows the charge, never speeds it."""
    charged, prev_t, prev_c = 0.0, started, 0.0
    for t, c in samples:
        charged += min(max(c - prev_c, 0.0), max(t - prev_t, 0.0))
        prev_t, prev_c = t, c
    return charged


def out_of_time(samples: list, timeout: float, started: float) -> bool:
    """A grade's timeout counts the child's CPU seconds, so that a loaded machine (the child waiting for a core)
    does not turn a verdict into `timeout`: the same file gets the same verdict at any load (docs/grader.md,
    Determinism). A child that waits (sleep, a lock) uses no CPU: it is out of time once the wall clock passes the
    timeout and it has been idle for IDLE_WINDOW_S. `samples` are (monotonic time, CPU seconds or None)."""
    now, cpu = samples[-1]
    wall = now - started
    if cpu is None:  # no /proc: the wall clock alone
        return wall >= timeout
    if charged_seconds(samples, started) >= timeout or wall >= HARD_FACTOR * timeout:
        return True
    if wall < timeout:
        return False
    window = [(t, c) for t, c in samples if now - t <= IDLE_WINDOW_S + POLL_S / 2]
    if now - window[0][0] < IDLE_WINDOW_S * 0.9:
        return False
    return (cpu - window[0][1]) < IDLE_SHARE * (now - window[0][0])


def wait_child(proc, out: str, log, device: str, timeout: float, started_at: float, progress=None) -> ChildRun:
    """Wait for one grading process until it is out of time (out_of_time: its CPU seconds, or idle past the
    timeout); progress(device, text), if given, is told every poll what the child says it is doing (its
    <out>.progress line, where the child writes one)."""
    run = ChildRun(device)
    started = time.monotonic()
    samples: list = []
    killed_at = None
    while True:
        try:
            proc.wait(timeout=POLL_S)
            break
        except subprocess.TimeoutExpired:
            samples.append((time.monotonic(), child_cpu_seconds(getattr(proc, "pid", None))))
            if not out_of_time(samples, timeout, started_at):
                if progress:
                    progress(device, _progress_line(out))
                continue
        run.timed_out = True
        killed_at = time.monotonic()  # the limit; the second given to faulthandler below is not the learner's
        if samples and samples[-1][1] is not None:  # the seconds that reached the limit, whatever the machine's load
            charged = charged_seconds(samples, started_at)
            run.counted_s = charged if charged >= timeout else None
        run.stage = _progress_line(out)
        try:
            os.kill(proc.pid, signal.SIGUSR1)  # the child's faulthandler writes where it is stuck to the log
            proc.wait(timeout=1.0)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        kill_group(proc)  # the whole group: a hung kernel may have helpers
        break
    procs.reaped(proc)
    run.returncode = proc.returncode
    run.elapsed_s = (killed_at or time.monotonic()) - started
    log.seek(0)
    run.output = log.read().decode("utf-8", "replace")[-4000:]
    log.close()
    if os.path.exists(out):
        try:
            with open(out, encoding="utf-8") as f:
                run.result = json.load(f)
        except (OSError, ValueError):
            run.result = None
    return run


STARTUP_STAGES = (catalog.text("progress.starting", "en"), catalog.text("progress.imports", "en"))


def _progress_line(out: str) -> str:
    try:
        with open(out + ".progress", encoding="utf-8") as f:
            return f.read(200)
    except OSError:
        return STARTUP_STAGES[0]


def run_children(path: Path, drill: str, devices: list[str], seed: int, timeout: float,
                 progress=None) -> list[ChildRun]:
    with procs.scratch_dir("drill-grade-") as workdir:
        started = []
        try:
            for d in devices:
                started.append((d, *start_child(path, drill, d, seed, quick=(d == "cpu" and "cuda" in devices),
                                                workdir=workdir, timeout=timeout)))
            started_at = time.monotonic()
            return [wait_child(proc, out, log, d, timeout, started_at, progress) for d, proc, out, log in started]
        except BaseException:  # Ctrl-C in the parent: the children have their own session, so end them here
            for _, proc, _, log in started:
                kill_group(proc)
                log.close()
            raise


def grade(path: Path, drill: str | None = None, device: str = "auto", seed: int = 0,
          timeout: float | None = None, progress=None) -> Verdict:
    """Grade one file. Raises UnreadableFile / KeyError (usage errors); everything else is a verdict.
    progress(device, text), if given, hears what the grading process is doing, every poll."""
    started = time.monotonic()
    path = Path(path).resolve()
    static = inspect_file(path)
    name = drill or static.drill
    if name is None:
        raise UnnamedDrill("usage.no_drill_line")
    spec = get_spec(name)
    lines = static.source.splitlines()
    auto = device == "auto"
    if auto:
        device = "cuda" if nvidia_driver_present() else "cpu"
    elif device == "cuda" and not nvidia_driver_present():
        raise DeviceUnavailable("usage.no_nvidia_driver")
    v = Verdict(drill=spec.name, file=str(path), device=device, passed=False, diagnosis=None, source_lines=lines)

    if static.syntax_error:
        v.diagnosis, v.detail, v.line = "error", {"exception": static.syntax_error}, static.syntax_error["line"]
        v.checks = [{"name": "file", "passed": False,
                     **catalog.detail(catalog.part("check_details.syntax_error", line=v.line))}]
        return _done(v, started)
    if static.holes:
        v.diagnosis, v.line = "hole", static.holes[0]["line"]
        v.hole = static.holes[0]["name"]
        v.detail = {"holes": static.holes}
        holes = []
        for h in static.holes:
            holes += [catalog.part("check_parts.list_sep")] * bool(holes) + [
                catalog.part("check_parts.hole_at", hole=h["name"], line=h["line"])]
        v.checks = [{"name": "holes filled", "passed": False, **catalog.detail(*holes)}]
        return _done(v, started)

    devices = ["cuda", "cpu"] if device == "cuda" else ["cpu"]
    runs = run_children(path, spec.name, devices, seed, timeout or spec.timeout_s, progress)
    if device == "cuda" and ((runs[0].result or {}).get("fatal") or {}).get("type") == "NoCuda":
        if not auto:
            raise DeviceUnavailable("usage.no_cuda_torch")
        v.device, devices = "cpu", ["cpu"]  # a driver, but no CUDA for torch: the interpreter grades alone
        runs = run_children(path, spec.name, devices, seed, timeout or spec.timeout_s, progress)
    v.runs = [{"device": r.device, "returncode": r.returncode, "timed_out": r.timed_out,
               "elapsed_s": round(r.elapsed_s, 2), "output": r.output if not r.result or r.result.get("fatal")
               else r.output[-1500:]} for r in runs]
    merge(v, runs, spec)
    return _done(v, started)


def _done(v: Verdict, started: float) -> Verdict:
    v.elapsed_s = round(time.monotonic() - started, 2)
    if v.diagnosis in get_spec(v.drill).holes:
        v.hole = v.diagnosis
    return v


def merge(v: Verdict, runs: list[ChildRun], spec) -> None:
    """Child results -> one verdict: fatal problems first, then every call's category."""
    runs = explain_cuda_death(v, runs)
    for r in runs:
        if r.result:
            v.info.setdefault(r.device, {k: r.result.get(k) for k in ("triton", "torch", "device_name",
                                                                      "autotune_configs", "elapsed_s", "phases", "max_programs",
                                                                      "autotune", "autotune_picked")})
        if r.timed_out:
            seconds = r.counted_s if r.counted_s is not None else r.elapsed_s  # CPU seconds when they hit the limit
            v.diagnosis, v.detail = "timeout", {"seconds": round(seconds, 1), "device": r.device,
                                                "calls_done": len((r.result or {}).get("calls", []))}
            if r.stage in STARTUP_STAGES:  # killed in drill's own start-up: the learner's code never ran
                v.detail["startup"] = r.stage
            v.line = stuck_line(r.output, v.file)
            v.checks.append({"name": "finishes in time", "passed": False,
                             **catalog.detail(catalog.part("check_details.killed", seconds=f"{seconds:.0f}",
                                                           device=r.device))})
            return
        if r.result is None:
            sig = -r.returncode if r.returncode and r.returncode < 0 else None
            v.diagnosis = "crash"
            v.detail = {"signal": signal.Signals(sig).name if sig else None, "returncode": r.returncode,
                        "device": r.device, "output": r.output[-1500:]}
            v.checks.append({"name": "runs without crashing", "passed": False,
                             **catalog.detail(catalog.part("check_details.died",
                                                           signal=v.detail['signal'] or r.returncode))})
            return
        fatal = r.result.get("fatal")
        if fatal and fatal.get("internal"):
            v.diagnosis, v.internal, v.detail = "internal", fatal["internal"], {"internal": fatal["internal"]}
            v.checks.append({"name": "drill graded this", "passed": False,
                             **catalog.detail(catalog.part("check_parts.internal_at", type=fatal["internal"].get("type"),
                                                           where=fatal["internal"].get("where")))})
            return
        if not fatal and not r.result.get("calls") and r.result.get("unchecked"):
            first = r.result["unchecked"][0]
            v.diagnosis, v.detail = "not-checked", {"device": r.device, **first["unchecked"], "size": first["size"]}
            v.line = first["unchecked"].get("line")
            v.unchecked = [dict(c, device=r.device) for c in r.result["unchecked"]]
            v.checks.append({"name": "checked on CPU", "passed": False, "detail": first["unchecked"]["reason"]})
            return
        if not fatal and not r.result.get("calls") and r.result.get("skipped"):
            first = r.result["skipped"][0]
            v.diagnosis, v.detail = "timeout", {"budget": True, "device": r.device, **first["skipped"],
                                                "seconds": r.result.get("budget_s"), "size": first["size"]}
            v.checks.append({"name": "finishes in time", "passed": False,
                             **catalog.detail(catalog.part("check_parts.over_budget", size=first["size"],
                                                           estimate=first["skipped"]["estimate_s"]))})
            return
        if not fatal and not r.result.get("calls"):
            fatal = {"stage": "grade", "type": "NoCalls", "message": catalog.text("check_details.no_calls", "en")}
        if fatal:
            v.diagnosis, v.detail, v.line = "error", {"exception": fatal, "stage": fatal.get("stage")}, \
                fatal.get("line")
            v.checks.append({"name": fatal.get("stage", "run"), "passed": False, "detail": fatal.get("message")})
            return

    calls = [dict(c, device=r.device) for r in runs for c in r.result.get("calls", [])]
    v.skipped = [dict(c, device=r.device) for r in runs for c in r.result.get("skipped", [])]
    v.unchecked = [dict(c, device=r.device) for r in runs for c in r.result.get("unchecked") or []]
    v.diagnosis = combine(calls)
    v.passed = v.diagnosis is None
    if v.diagnosis == "internal":
        v.internal = next(c["detail"]["internal"] for c in calls if c["category"] == "internal")
        v.detail = {"internal": v.internal}
        v.cases = summarize_cases(calls)
        v.checks.append({"name": "drill graded this", "passed": False,
                         **catalog.detail(catalog.part("check_parts.internal_at", type=v.internal.get("type"),
                                                       where=v.internal.get("where")))})
        return
    v.cases = summarize_cases(calls)
    v.evidence = size_evidence(calls)
    v.checks += summarize_checks(calls, spec)
    v.others = sorted({c["category"] for c in calls if c["category"] and c["category"] != v.diagnosis})
    for annotate in registry.hooks(spec, "annotate"):  # the families' evidence: launches, bytes proof, speed
        annotate(v, calls, runs, spec)                     # gate (may turn a pass into too-slow), device limits
    if not v.passed and not v.detail.get("timing"):
        v.focus = pick_focus(calls, v.diagnosis)
        v.detail = v.focus.get("detail", {})
        v.line = line_of(v.focus, spec)
        if v.diagnosis == "offsets" and not v.detail.get("violation"):
            v.line = offsets_line(v.source_lines, v.focus.get("launches", [])) or v.line
        if v.diagnosis == "persistent" and v.line is None:
            v.line = loop_line(v.source_lines, v.focus.get("launches", []))
    for conclude in registry.hooks(spec, "conclude"):  # a compile lab: Dynamo's breaks, recompiles, opcheck
        conclude(v, runs, spec)                          # (may fail a pass)


def explain_cuda_death(v: Verdict, runs: list[ChildRun]) -> list[ChildRun]:
    """A CUDA child that died with no result (a fault that took the process down) is a symptom when the
    interpreter run beside it saw out-of-bounds lanes: those name the cause and the line. Grade on the lanes."""
    dead = [r for r in runs if r.device == "cuda" and r.result is None and not r.timed_out]
    lanes = [c for r in runs if r.device == "cpu" and r.result for c in r.result.get("calls", [])]
    if not dead or not any(out_of_bounds(c) for c in lanes):
        return runs
    sig = -dead[0].returncode if dead[0].returncode and dead[0].returncode < 0 else None
    v.checks.append({"name": "runs without crashing", "passed": False,
                     **catalog.detail(catalog.part("check_parts.cuda_died",
                                                   signal=signal.Signals(sig).name if sig else dead[0].returncode))})
    return [r for r in runs if r not in dead]


def stuck_line(output: str, learner_file: str) -> int | None:
    """The innermost line of the learner's file in the child's faulthandler dump (most recent call first)."""
    import re
    m = re.search(r'File "' + re.escape(os.path.realpath(learner_file)) + r'", line (\d+)', output)
    return int(m.group(1)) if m else None


def combine(calls: list[dict]) -> str | None:
    """One diagnosis from the CUDA run and the interpreter run beside it.

    A decisive category seen anywhere wins — except a CUDA fault that the interpreter explains (out-of-bounds lanes,
    or another failure it found): the interpreter names the cause and the line, the fault is only its symptom. Otherwise, when the interpreter saw
    failures its calls decide (it sees every lane and which program stored what); else the CUDA calls do (a failure
    only at 2^24+17, a guard hit)."""
    def verdict(subset):
        return overall([c["category"] for c in subset],
                       [c["category"] for c in subset if memory_evidence(c.get("detail") or {})])

    lanes = [c for c in calls if c["device"] == "cpu"]
    gpu = [c for c in calls if c["device"] != "cpu"]
    lane_verdict = verdict(lanes)
    # A CUDA fault is a symptom when the interpreter found a cause: out-of-bounds lanes, or any failure at the sizes
    # it ran (a grid of n programs overflows int32 offsets only at 2^24+17, which the interpreter does not run).
    explained_fault = any(c["category"] == "crash" for c in gpu) and (any(
        memory_evidence(c.get("detail") or {}) for c in lanes) or lane_verdict not in (None, "crash"))
    gpu_verdict = verdict([c for c in gpu if not (explained_fault and c["category"] == "crash")])
    for c in DECISIVE:
        if c in (gpu_verdict, lane_verdict):
            return c
    return lane_verdict or gpu_verdict


def line_of(call: dict, spec=None) -> int | None:
    d = call.get("detail", {})
    own = registry.first(spec, "call_line", d) if spec is not None else None
    if own:  # a family's own line (a refused launch or a broken heuristic names the line that chose it)
        return own
    if (d.get("no_device") or {}).get("line"):  # the allocation that has no device=
        return d["no_device"]["line"]
    for key in ("violation", "exception", "masked_load", "mistake"):  # a mistake told by its stores: their line
        if d.get(key) and d[key].get("line"):
            return d[key]["line"]
    if d.get("ops"):
        return d["ops"][0].get("line")
    if call.get("category") in ("grid", "no-kernel", "fusion") or call.get("category") == "offsets":
        for l in call.get("launches", []):
            if l.get("line"):
                return l["line"]
    return None


def offsets_line(lines: list[str], launches: list[dict]) -> int | None:
    """The line that builds the offsets: the first `arange(` inside the launched kernel's body."""
    return kernel_body_line(lines, [l.get("kernel") for l in launches], lambda ln: "arange(" in ln)


def loop_line(lines: list[str], launches: list[dict]) -> int | None:
    """The loop over tiles of a capped grid: the first `for` / `while` in the launched kernel's body."""
    return kernel_body_line(lines, [l.get("kernel") for l in launches], lambda ln: ln.startswith(("for ", "while ")))


def pick_focus(calls: list[dict], category: str) -> dict:
    """The call to show in full: of those with the verdict's category, the largest with at most 256 tiles."""
    same = [c for c in calls if c["category"] == category]
    small = [c for c in same if len(c.get("tiles", {}).get("status", "")) <= 256
             or not c.get("tiles", {}).get("flat", True)]  # a map that is not shown (not flat tiles) limits nothing
    pool = small or same
    return max(pool, key=lambda c: (c.get("numel") or 0, c["device"] == "cuda"))


def summarize_cases(calls: list[dict]) -> list[dict]:
    """One row per (device, size, config): pass, or the categories seen over its seeds and calls."""
    rows: dict = {}
    for c in calls:
        key = (c["device"], json.dumps(c["size"]), c.get("config"), c.get("probe"))
        row = rows.setdefault(key, {"device": c["device"], "size": c["size"], "config": c.get("config"),
                                    "probe": c.get("probe"), "calls": 0, "failed": 0, "categories": []})
        row["calls"] += 1
        if c["category"]:
            row["failed"] += 1
            if c["category"] not in row["categories"]:
                row["categories"].append(c["category"])
    return list(rows.values())


LAUNCH_FIELDS = ("kernel", "grid", "programs", "block", "num_warps", "line")


def size_evidence(calls: list[dict]) -> list[dict]:
    """One row per (device, size, probe) from its first call: the launches (grid, programs, BLOCK, line), bytes
    moved and the lines whose loads/stores had masked-off lanes. Facts about the learner's own kernel that a mock
    interview can ask about and check."""
    rows: dict = {}
    for c in calls:
        key = (c["device"], json.dumps(c["size"]), c.get("probe"))
        if key in rows or c.get("exception"):
            continue
        rows[key] = {"device": c["device"], "size": c["size"], "probe": c.get("probe"), "config": c.get("config"),
                     "numel": c.get("numel"), "category": c.get("category"),
                     "launches": [{k: l.get(k) for k in LAUNCH_FIELDS} for l in c.get("launches", [])],
                     "bytes": c.get("bytes"), "bytes_model": c.get("bytes_model"),
                     "masked_loads": c.get("masked_loads"), "masked_stores": c.get("masked_stores")}
    return list(rows.values())


MEMORY_CHECK = "memory accesses in bounds"


def out_of_bounds(c: dict) -> bool:
    return bool(c.get("violations") or c.get("guard_hits") or memory_evidence(c.get("detail") or {}))


# Each row is computed from its own evidence in the call, whatever category the call ended up with: a row is ✗
# exactly when its own thing went wrong (a too-strict mask leaves elements unwritten, it touches no foreign memory).
CHECKS = (
    ("runs without error", lambda c: c["category"] in ("error", "crash")),
    ("computes in a Triton kernel", lambda c: c["category"] in ("torch-fallback", "no-kernel")
     or (c["category"] == "fusion" and not (c.get("detail") or {}).get("bytes_moved"))),
    ("output dtype and shape", lambda c: c.get("returned") == "tensor" and not (
        c.get("dtype_ok", True) and c.get("shape_ok", True) and c.get("device_ok", True)
        and c.get("layout_ok", True))),
    (MEMORY_CHECK, out_of_bounds),
    ("inputs unchanged", lambda c: bool(c.get("inputs_mutated"))),
    ("every output element written", lambda c: bool(c.get("unwritten"))
     and not (c.get("detail") or {}).get("refused")),  # a launch the device refused wrote nothing, by design
    ("values match the float64 reference", lambda c: bool(c.get("wrong"))),
    ("second call gets a fresh output", lambda c: bool(c.get("stale"))),
    ("no program's work wasted", lambda c: bool((c.get("detail") or {}).get("wasted"))),
)


# Shown only for drills whose spec asks for them.
SPEC_CHECKS = (
    ("max_programs", "grid capped, each tile stored once", ("persistent",)),
    ("autotune_min_configs", "autotuned over BLOCK and num_warps", ("autotune",)),
)


def summarize_checks(calls: list[dict], spec=None) -> list[dict]:
    own = [row for check_rows in (registry.hooks(spec, "check_rows") if spec is not None else [])
           for row in check_rows(spec)]  # a family's rows (training: backward through autograd)
    rows = list(CHECKS) + [(name, lambda c, cats=cats: c["category"] in cats)
                           for field_name, name, cats in SPEC_CHECKS if getattr(spec, field_name, None)] + \
        [(name, lambda c, cats=cats: c["category"] in cats) for name, cats in own]
    checks = []
    for name, failed in rows:
        bad = [c for c in calls if failed(c)]
        detail = catalog.part("check_details.calls", passed=len(calls) - len(bad), calls=len(calls)) if not bad \
            else catalog.part("check_details.calls_failed", bad=len(bad), calls=len(calls), size=bad[0]['size'],
                              device=bad[0]['device'])
        checks.append({"name": name, "passed": not bad, **catalog.detail(detail)})
    return checks
