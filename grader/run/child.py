"""The child process that runs the learner's code. Started by `grader.run.runner`; never imported by the CLI's parent
process. The warm worker (grader.run.worker) imports it once and calls `run` in a fresh fork for each grade.

    python -m grader.run.child --file F --drill NAME --device cpu|cuda --seed S --out RESULT.json

On cpu, TRITON_INTERPRET=1 is set before Triton is imported (the decorators read it), and every load/store is
checked lane by lane. The result is written atomically as JSON; a crash leaves no file, which the parent reports.
"""
from __future__ import annotations

import argparse
import faulthandler
import importlib.util
import inspect
import json
import os
import signal
import sys
import time
from pathlib import Path

from grader.core import catalog
from grader.core.files import atomic_write_text


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m grader.run.child")
    ap.add_argument("--file", required=True)
    ap.add_argument("--drill", required=True)
    ap.add_argument("--device", choices=("cpu", "cuda"), required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true", help="fewer seeds (the interpreter pass beside a CUDA run)")
    ap.add_argument("--timeout", type=float, default=60.0, help="the parent's timeout: the interpreter's budget")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    run(parse_args(argv), time.perf_counter())


def run(a: argparse.Namespace, started: float):
    """Grade, write the result file, and end the process (never returns).

    Both kinds of grading process end here: a cold `python -m grader.run.child` (main above) and a fork of the warm
    worker (grader.run.worker), which has torch and Triton imported already and calls this in the fresh fork."""
    # On a timeout the parent sends SIGUSR1 first: the traceback names the line the learner's code is stuck on.
    faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=False)
    interpreted = a.device == "cpu"
    if interpreted:
        os.environ["TRITON_INTERPRET"] = "1"
        from grader.watch.interp_speed import install as install_speedups
        install_speedups()
    else:
        os.environ.pop("TRITON_INTERPRET", None)
    result = {"device": a.device, "interpreted": interpreted, "calls": [], "file": a.file}
    try:
        result.update(grade(a, interpreted, started))
        result["complete"] = True
    except BaseException as e:  # noqa: BLE001 - learner code that escaped the per-call handlers, or a grader bug
        result["fatal"] = {"stage": "grade", "type": type(e).__name__, "message": str(e)[:800] or type(e).__name__}
        from grader.core.faults import describe_fault, drill_fault
        from grader.judge.evaluate import learner_line_of
        fault = drill_fault(e, os.path.realpath(a.file))
        if fault is None and learner_line_of(e, os.path.realpath(a.file)) is None:
            fault = describe_fault(e, stage="grade")  # nothing of the learner's file on the stack: drill's own
        if fault is not None:
            result["fatal"]["internal"] = fault
    result["elapsed_s"] = round(time.perf_counter() - started, 3)
    atomic_write_text(Path(a.out), json.dumps(result))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # never wait for threads the learner's code left running


def note(a, text: str) -> None:
    """What the grade is doing now, for the parent's status line: one line in <out>.progress, overwritten."""
    try:
        with open(a.out + ".progress", "w", encoding="utf-8") as f:
            f.write(text)
    except OSError:
        pass


def grade(a, interpreted: bool, started: float) -> dict:
    note(a, catalog.text("progress.imports", "en"))
    import torch
    import triton  # after TRITON_INTERPRET is settled

    phases = {"imports_s": round(time.perf_counter() - started, 3)}  # where a grade's seconds go

    from drills import get_spec
    from grader.families import registry
    from grader.judge.diagnose import (blame_layout_assumption, blame_probe_layouts, classify, drop_unproven_other,
                                       key_never_changes, prefer_consistent_mistakes, refute_mistakes,
                                       relabel_probes)
    from grader.judge.evaluate import describe_exception
    from grader.watch.lanes import LaneChecker
    from grader.watch.launches import LaunchRecorder, autotune_evidence, config_label, find_autotuners
    from grader.watch.memory import Memory
    from grader.watch.torch_watch import TorchWatch

    spec = get_spec(a.drill)
    learner_file = os.path.realpath(a.file)
    note(a, catalog.text("progress.importing_file", "en"))
    info = {"triton": triton.__version__, "torch": torch.__version__.split("+")[0], "phases": phases}
    if a.device == "cuda":
        if not torch.cuda.is_available():
            return {**info, "fatal": {"stage": "device", "type": "NoCuda", "message": catalog.text("check_details.no_cuda", "en")}}
        info["device_name"] = torch.cuda.get_device_name()

    lanes = LaneChecker(learner_file, distinct_loads=spec.byte_model is not None) if interpreted else None
    if lanes:
        lanes.install()
        from grader.watch.interp_compat import install_all as install_interpreter_fixes
        install_interpreter_fixes()  # before the learner's import: the interpreter runs what the compiler would
    recorder = LaunchRecorder(learner_file, lanes)
    recorder.install(interpreted)

    # Tensors the module makes at import (workspaces, constants) are the learner's memory too.
    module_memory = Memory(a.device)
    # Import the learner's file as a module (its directory on sys.path, as `python file.py` would have it).
    sys.path.insert(0, os.path.dirname(learner_file))
    try:
        mod_spec = importlib.util.spec_from_file_location("learner_submission", learner_file)
        module = importlib.util.module_from_spec(mod_spec)
        sys.modules["learner_submission"] = module
        t0 = time.perf_counter()
        with TorchWatch(module_memory, recorder, learner_file, record_ops=False):
            mod_spec.loader.exec_module(module)
        phases["learner_import_s"] = round(time.perf_counter() - t0, 3)
    except BaseException as e:  # noqa: BLE001 - any failure of the learner's import is the learner's error
        from grader.core.faults import drill_fault
        fault = drill_fault(e, learner_file)  # ... unless it was raised by drill's watch over the import
        return {**info, "fatal": {"stage": "import", **describe_exception(e, learner_file),
                                  **({"internal": fault} if fault else {})}}
    entry = getattr(module, spec.entry, None)
    if not callable(entry):
        names = [n for n, v in vars(module).items() if inspect.isfunction(v) and v.__module__ == module.__name__]
        return {**info, "fatal": {"stage": "entry", "type": "MissingEntry", "entry": spec.entry,
                                  "found": names, "message": catalog.text("check_details.no_function", "en",
                                                                     entry=spec.entry)}}
    replace_calls = registry.hooks(spec, "child_grade")  # a family graded otherwise (a compile lab: torch.compile)
    if replace_calls:
        return {**info, **replace_calls[0](spec, module, entry, a.device, learner_file, lanes, recorder, CallRunner)}

    # An autotuned kernel is graded once per config: a grid that ignores the chosen BLOCK fails on every device.
    configs = [(None, None)]
    for tuner in find_autotuners(module):
        if len(tuner.configs) > 1:
            configs = [(tuner, c) for c in tuner.configs]
            break
    info["autotune_configs"] = [config_label(c) for _, c in configs if c is not None]

    rules = {"value_category": spec.value_category, "masked_other": spec.masked_other,
             "index_category": spec.oob_category, "input_categories": spec.input_categories,
             "stride_category": spec.stride_category}
    if "grid" in spec.holes:  # the learner writes the grid: idle programs are judged strictly
        from grader.judge.diagnose import GRID_HOLE_IDLE_FACTOR
        rules["idle_factor"] = GRID_HOLE_IDLE_FACTOR
    if spec.max_programs is not None:
        rules["max_programs"] = spec.max_programs
        if a.device == "cuda" and spec.max_programs_per_sm:
            sms = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
            rules["max_programs"] = spec.max_programs_per_sm * sms
        info["max_programs"] = rules["max_programs"]
    for launch_rules in registry.hooks(spec, "launch_rules"):  # a family's rules (a device's launch limits)
        rules.update(launch_rules(spec))
    if spec.autotune_min_configs:
        rules["autotune"] = info["autotune"] = autotune_evidence(find_autotuners(module), spec.autotune_min_configs)

    if interpreted:  # what the interpreter runs, the compiler must accept: its front end checks every new launch
        from grader.watch.compile_check import FrontEnd
        recorder.frontend = FrontEnd(learner_file)
    budget = None
    if interpreted:  # the interpreter's cost grows with the programs launched: skip what would not fit
        from grader.run.budget import Budget, VirtualClock
        # Counted seconds (deterministic: the verdict never depends on the machine's load), from a fixed share of
        # the timeout; the process's CPU time is a safety net only, at CPU_SHARE of the timeout.
        clock = VirtualClock(cpu_deadline=CPU_SHARE * a.timeout).install()  # process_time counts from this process's start
        budget = Budget(max(5.0, BUDGET_SHARE * a.timeout), clock=clock)
        recorder.budget = budget
    runner = CallRunner(spec, entry, a.device, learner_file, lanes, recorder, keep_inputs=len(configs) > 1,
                        carried=module_memory.regions, budget=budget)
    calls, skipped, unchecked = [], [], []
    contract_evs, result_contract = [], None  # a family's pure calls, no launch (a heuristic's contract)
    for contract_calls in registry.hooks(spec, "contract_calls"):
        evs, summary = contract_calls(spec, module, learner_file)
        contract_evs += evs
        result_contract = summary if summary is not None else result_contract
    before_classify = registry.hooks(spec, "before_classify")
    after_classify = registry.hooks(spec, "after_classify")
    t0 = time.perf_counter()
    for tuner, config, size, probe, seed in call_plan(spec, configs, a.device, 1 if a.quick else spec.seeds):
        if seed > 0 and any(c["category"] for c in calls):
            # A further seed repeats the first round (every size and probe) with new values, to find a failure that
            # round missed; once the grade has failed, it would only count the same failures again.
            continue
        at = str(size) if isinstance(size, int) else "x".join(map(str, size))
        note(a, catalog.text("progress.calling", "en", size=at, seed=seed) if probe is None else
             catalog.text("progress.calling_probe", "en", size=at, probe=probe.name, seed=seed))
        # The first seed calls twice per size (the second call checks the first result was not reused); a further
        # seed is one more draw of values, and its second call would repeat a check every size has passed.
        for ev in runner.pair(size, a.seed * 1000 + seed, tuner, config, probe, calls=2 if seed == 0 else 1):
            ev["config"] = config_label(config) if config is not None else None
            if probe is not None:
                ev["probe"] = probe.name
                ev["probe_category"] = probe.category or spec.value_category
            if ev.get("skipped"):
                skipped.append({k: ev.get(k) for k in ("size", "seed", "call", "config", "probe", "skipped")})
                continue
            if ev.get("unchecked"):  # a CPU limitation, not the learner's: neither a pass nor a failure
                unchecked.append({k: ev.get(k) for k in ("size", "seed", "call", "config", "probe", "unchecked")})
                continue
            for hook in before_classify:  # e.g. what the heuristic picked for this n
                hook(ev, module, spec, learner_file)
            ev["category"], ev["detail"] = classify(ev, spec.max_launches, rules)
            if ev.get("internal"):  # drill's own machinery failed in this call: no verdict on the learner
                ev["category"], ev["detail"] = "internal", {"internal": ev["internal"]}
            else:  # a family's refinement (gradients: no autograd graph, a missing gradient, a race)
                for hook in after_classify:
                    ev["category"], ev["detail"] = hook(ev, spec)
            calls.append(ev)
            if ev["category"] and budget is not None:
                budget.saw_failure()
            if ev["category"] in ("crash", "internal"):  # a CUDA fault poisons the context; drill broke: stop
                return {**info, "calls": calls, "skipped": skipped, "unchecked": unchecked}
    if configs[0][0] is not None and not any(c["category"] for c in calls):
        tuned = tuning_call(runner, configs[0][0], spec, a.seed, interpreted)
        if tuned is not None:
            calls.append(tuned)
    refute_mistakes(calls, spec.max_launches, rules)  # a named mistake that a probe it cannot pass passed
    prefer_consistent_mistakes(calls, spec.max_launches, rules)  # of two matches at a size, the one others match
    drop_unproven_other(calls, rules)  # a masked load's other= blamed only where masked lanes matter
    relabel_probes(calls)
    blame_probe_layouts(calls)
    blame_layout_assumption(calls, spec.stride_category)  # right only on a layout probe: the layout is assumed
    constant_key = key_never_changes(calls, rules)
    if constant_key:  # a grade-wide fact: every call that passed on its own fails it
        for ev in calls:
            if ev["category"] is None:
                ev["category"], ev["detail"] = "autotune", constant_key
    info["skipped"] = skipped
    info["unchecked"] = unchecked
    if budget is not None:
        info["budget_s"] = round(budget.seconds, 1)
    phases["calls_s"] = round(time.perf_counter() - t0, 3)
    calls += contract_evs  # after the real calls: their evidence rows come first
    if result_contract:
        info["contract"] = result_contract
    if a.device == "cuda" and configs[0][0] is not None:
        largest = (list(spec.sizes) + list(spec.cuda_sizes))[-1]
        info["autotune_picked"] = picked_config(runner, configs[0][0], largest, a.seed)
    # Timing runs on CUDA after every call passed. DRILL_SKIP_TIMING: benchmarks/grade_all.py --skip-timing compares
    # verdicts only (the gates have their own benchmark scripts); never set for a learner.
    timed = a.device == "cuda" and not any(c["category"] for c in calls) and not os.environ.get("DRILL_SKIP_TIMING")
    if timed and spec.speedup_min is not None:
        recorder.uninstall()
        note(a, catalog.text("progress.timing_eager", "en"))
        t0 = time.perf_counter()
        info["timing"] = run_timing(spec, entry, info["device_name"], learner_file)
        phases["timing_s"] = round(time.perf_counter() - t0, 3)
    cuda_info = registry.hooks(spec, "cuda_info") if timed else []
    for hook in cuda_info:  # a family's CUDA timing, shown (a device's capped vs uncapped grid)
        recorder.uninstall()
        info.update(hook(spec, entry, learner_file))
    return {**info, "calls": calls}


MISTAKE_MAX_NUMEL = 200_000  # outputs larger than this are not compared with the drill's known-mistake models

# Share of the child's timeout that interpreted calls may spend (imports, evaluation and slack take the rest).
BUDGET_SHARE = 0.5
CPU_SHARE = 0.8  # past this share of the timeout (CPU seconds), calls are skipped rather than the child killed


def call_plan(spec, configs, device: str, seeds: int):
    """(tuner, config, size, probe, seed) in the order they run: every size and probe once (seed 0), smallest
    first, then the further seeds; CUDA's large sizes once. Autotuned kernels: every config gets the first round,
    only the first config the further seeds (a grid that ignores the chosen BLOCK shows on any seed)."""
    first_round = [(size, None) for size in spec.sizes]
    if device == "cuda":
        first_round += [(size, None) for size in spec.cuda_sizes]
    first_round += [(size, p) for p in spec.probes for size in p.sizes]
    again = [(size, None) for size in spec.sizes] + [(size, p) for p in spec.probes for size in p.sizes]
    for i, (tuner, config) in enumerate(configs):
        for size, probe in first_round:
            yield tuner, config, size, probe, 0
        if i == 0:
            for seed in range(1, seeds):
                for size, probe in again:
                    yield tuner, config, size, probe, seed


def run_timing(spec, entry, device_name, learner_file) -> dict:
    """The speed gate (grader.speed.timing); a learner exception while timing is reported, not raised."""
    from grader.judge.evaluate import describe_exception
    from grader.speed.timing import speed_report

    try:
        return speed_report(spec, entry, device_name)
    except Exception as e:  # noqa: BLE001
        exc = describe_exception(e, learner_file)
        if exc["line"] is None:  # the failure is in the grader's timing, not the learner's code: no verdict on it
            return {"category": None, "skipped": f"{exc['type']}: {exc['message'].splitlines()[0][:200]}"}
        return {"category": "error", "exception": exc}


def tuning_call(runner, tuner, spec, seed, interpreted: bool) -> dict | None:
    """One call as @triton.autotune really runs it: the tuner benchmarks every config on the call's own arguments
    (GPU: many runs each; interpreter: one each, through a stand-in for its benchmarker), then runs the best. A
    kernel that accumulates into its output (atomics, split-K) without reset_to_zero comes out several times too
    large, although every config was right on its own. Only a values failure is kept: the benchmark runs' extra
    launches and bytes are the tuner's, not the learner's."""
    from contextlib import nullcontext

    from grader.watch.launches import benchmark_once

    size = spec.sizes[1] if len(spec.sizes) > 1 else spec.sizes[0]
    with (benchmark_once(tuner) if interpreted else nullcontext()):
        ev, _ = runner.call(size, seed * 1000 + 7, 0, None, None)
    if ev.get("skipped") or ev.get("exception") or not ev.get("wrong") or ev.get("unwritten"):
        return None
    ev.update(config="as tuned", category="wrong-values",
              detail={"tuning": True, "wrong": ev["wrong"], "numel": ev.get("numel"),
                      "configs": len(getattr(tuner, "configs", []))})
    return ev


def picked_config(runner, tuner, size, seed) -> str | None:
    """One unpinned call on CUDA: the config the autotuner chose for the largest size."""
    from grader.watch.launches import config_label

    try:
        runner.call(size, seed, 0, None, None)
        best = getattr(tuner, "best_config", None)
        return config_label(best) if best is not None else None
    except Exception:  # noqa: BLE001 - reporting only
        return None


class CallRunner:
    """Calls the learner's entry point on guarded inputs and collects the evidence of each call."""

    def __init__(self, spec, entry, device, learner_file, lanes, recorder, keep_inputs=False, carried=(),
                 budget=None):
        self.spec, self.entry, self.device, self.budget = spec, entry, device, budget
        self.learner_file, self.lanes, self.recorder = learner_file, lanes, recorder
        self.keep_inputs, self.cache = keep_inputs, {}
        self.matched_mistakes: list = []  # names of the known mistakes this submission's calls matched so far
        from grader.families import registry
        self.extensions = registry.hooks(spec, "call_extension")  # per call: a family's backward, run and judged
        self.call_evidence = registry.hooks(spec, "call_evidence")  # an interpreted call's extra evidence
        # Regions that outlive a call: the module's tensors, and every output the learner allocated (a wrapper
        # may cache one and write it again: that is the stale-output check's business, not out-of-bounds).
        self.carried = list(carried)
        self.returned: list = []
        try:
            self.arg_names = list(inspect.signature(entry).parameters)
        except (TypeError, ValueError):
            self.arg_names = []

    def pair(self, size, seed, tuner, config, probe=None, calls=2):
        """Two calls with equal shapes and different values; the second also checks the first result was not reused.
        With calls=1, or when the first call failed, the first call only."""
        import torch

        first_out = first_snapshot = None
        for call in range(calls):
            ev, out = self.call(size, seed, call, tuner, config, probe)
            if ev.get("skipped"):
                yield ev
                return
            if isinstance(out, torch.Tensor) and "exception" not in ev:
                # Handed back storage an earlier call returned (a memoised result, a cached buffer)?
                reused = any(out.data_ptr() == old.data_ptr() for old in self.returned)
                changed = call == 1 and first_out is not None and \
                    not torch.equal(first_out.detach().nan_to_num(), first_snapshot.nan_to_num())
                if reused or changed:
                    ev["aliased"] = ev["stale"] = True
                self.returned.append(out)  # kept alive, so a fresh allocation never shares its address
                if call == 0:
                    first_out, first_snapshot = out, out.detach().clone()
            yield ev  # the caller classifies the call before asking for the next one
            if ev.get("category"):  # failed at this size already: the second call's new values and reuse check add
                return              # nothing the verdict or its ranking of causes uses (docs/grader.md)

    def inputs_and_reference(self, size, seed, call, probe):
        """The inputs of one call and their float64 reference; kept when an autotuned kernel is graded per config,
        since every config gets the same inputs (at 2^24 elements they take seconds to make)."""
        import torch

        key = (json.dumps(size), seed, call, probe.name if probe is not None else None)
        if key in self.cache:
            return self.cache[key]
        # CUDA-only sizes (2^24 elements, 4096x8192) are drawn on the GPU, and their float64 reference computed
        # there: drawn on the CPU they cost ~0.3 s a call, half of a CUDA re-grade's time (benchmarks/profile_grade.py).
        on_gpu = self.device == "cuda" and probe is None and size in self.spec.cuda_sizes
        gen = torch.Generator(device="cuda" if on_gpu else "cpu").manual_seed(seed * 2 + call)
        inputs = (probe.make_inputs if probe is not None else self.spec.make_inputs)(size, gen)
        as64 = [t.double() for t in inputs]
        kwargs = self.kwargs(probe)
        ref = self.spec.reference(*as64, **kwargs)
        scale = self.spec.error_scale(*as64, **kwargs) if self.spec.error_scale else None
        if self.keep_inputs:
            self.cache[key] = (inputs, ref, scale)
        return inputs, ref, scale

    def kwargs(self, probe) -> dict:
        """The entry point's extra arguments: the drill's, and a probe's own (e.g. causal=True)."""
        return {**self.spec.kwargs, **(probe.kwargs if probe is not None else {})}

    def which_mistake(self, out, inputs, ref, launches, probe, only=None) -> dict | None:
        """The first of the drill's known mistakes whose output the learner's matches, with the others it matches as
        `alternatives` (diagnose.prefer_consistent_mistakes picks among them grade-wide). Values failures only; with
        `only`, just the mistakes of those names."""
        import torch

        from grader.judge.evaluate import matches

        meta = next((l.get("meta") for l in launches if l.get("meta")), {}) or {}
        as64 = [t.double() for t in inputs]
        got = out.detach().to("cpu", torch.float64)
        tolerance = self.spec.tolerance_for(str(out.dtype).replace("torch.", ""))
        found = []
        for m in self.spec.mistakes:
            if m.reference is None:  # told by its store footprint only (which_footprint)
                continue
            if only is not None and m.name not in only:
                continue
            try:
                wrong = m.reference(*as64, meta=meta, **self.kwargs(probe))
            except Exception:  # noqa: BLE001 - a mistake model that does not apply here
                continue
            if wrong is not None and tuple(wrong.shape) == tuple(got.shape) \
                    and not matches(wrong, ref, tolerance) and matches(got, wrong, tolerance):
                found.append({"name": m.name, "category": m.category, "refuted_by": list(m.refuted_by),
                              **({"fix": m.fix} if m.fix else {}), **({"name_zh": m.name_zh} if m.name_zh else {})})
        if not found:
            return None
        return {**found[0], **({"alternatives": found[1:]} if found[1:] else {})}

    def which_footprint(self, out, inputs, memory, launches, probe) -> dict | None:
        """The first of the drill's known mistakes whose store footprint (Mistake.footprint: which elements of the
        output its store lanes write, how many times each) is exactly the learner's, and not a right kernel's (every
        element once). Interpreter evidence: where the values went, whatever values they were."""
        import numpy as np

        from grader.judge.evaluate import footprint_counts, store_counts

        counts = store_counts(out, memory)
        if counts is None or (counts == 1).all():
            return None
        meta = next((l.get("meta") for l in launches if l.get("meta")), {}) or {}
        as64 = [t.double() for t in inputs]
        for m in self.spec.mistakes:
            if m.footprint is None:
                continue
            try:
                offsets = m.footprint(out, *as64, meta=meta, **self.kwargs(probe))
            except Exception:  # noqa: BLE001 - a mistake model that does not apply here
                continue
            if offsets is None:
                continue
            model = footprint_counts(out, offsets)
            if not (model == 1).all() and np.array_equal(model, counts):
                lines = {k: v for k, v in memory.region_of(out).store_lines.items() if k is not None}
                return {"name": m.name, "category": m.category, "refuted_by": list(m.refuted_by),
                        "line": max(lines, key=lines.get) if lines else None,
                        "footprint": {"unwritten": int((counts == 0).sum()), "twice": int((counts > 1).sum()),
                                      "outside": int(np.asarray(offsets).size - int(model.sum())),
                                      "numel": int(counts.size)},
                        **({"fix": m.fix} if m.fix else {}), **({"name_zh": m.name_zh} if m.name_zh else {})}
        return None

    def call(self, size, seed, call, tuner, config, probe=None):
        import torch
        from contextlib import nullcontext

        from grader.run.budget import OverBudget
        from grader.judge.evaluate import (describe_exception, evaluate_output, guard_evidence, learner_line_of,
                                           mutated_inputs)
        from grader.watch.launches import pinned
        from grader.watch.memory import Memory
        from grader.watch.torch_watch import TorchWatch, mark_data

        spec, lanes, recorder = self.spec, self.lanes, self.recorder
        inputs, ref, scale = self.inputs_and_reference(size, seed, call, probe)
        memory = Memory(self.device, self.carried)
        names = [self.arg_names[i] if i < len(self.arg_names) else str(i) for i in range(len(inputs))]
        guarded = [memory.place(t, f"input {names[i]}") for i, t in enumerate(inputs)]
        mark_data(guarded)  # torch computing with these (or what a kernel wrote from them) is a fallback
        clones = [t.clone() for t in guarded]
        extensions = [make(spec, inputs, guarded, names, memory, seed * 2 + call, self.kwargs(probe))
                      for make in self.extensions]  # a training drill's dy and float64 gradients
        ev = {"size": size if isinstance(size, int) else list(size), "seed": seed, "call": call}
        recorder.launches = []
        watch = TorchWatch(memory, recorder, self.learner_file)
        if lanes:
            lanes.start(memory)
        out = None
        counts_before = dict(getattr(getattr(self.budget, "clock", None), "counts", None) or {})
        started, cpu_started = time.perf_counter(), time.process_time()
        try:
            if self.budget is not None:
                self.budget.start_call(ref.numel())
            with (pinned(tuner, config) if tuner is not None else nullcontext()):
                with watch:
                    out = self.entry(*guarded, **self.kwargs(probe))
                for ext in extensions:  # the learner's backward, under the same watch and lane checks
                    ext.run(out, watch)
            if self.device == "cuda":
                torch.cuda.synchronize()
        except OverBudget as e:
            ev["skipped"] = {"estimate_s": round(e.estimate_s, 1), "left_s": round(max(e.left_s, 0), 1),
                             "programs": e.programs}
            return ev, None
        except BaseException as e:  # noqa: BLE001 - the learner's exception (even sys.exit) is evidence
            from grader.core.faults import cpu_limitation, drill_fault
            limitation = cpu_limitation(e)
            if limitation is not None and self.lanes is not None:
                ev["unchecked"] = {"reason": limitation[:400], "line": learner_line_of(e, self.learner_file)}
                return ev, None
            ev["exception"] = describe_exception(e, self.learner_file)
            fault = drill_fault(e, self.learner_file)
            if fault is not None:
                ev["internal"] = fault
        finally:
            if lanes:
                lanes.stop()
        if self.budget is not None:
            self.budget.end_call()
        ev["wall_s"] = round(time.perf_counter() - started, 4)
        ev["cpu_s"] = round(time.process_time() - cpu_started, 4)
        clock = getattr(self.budget, "clock", None)
        if isinstance(getattr(clock, "counts", None), dict):  # the interpreter's counted work (calibration)
            ev["counted"] = {k: v - counts_before.get(k, 0) for k, v in clock.counts.items()}
        self.carried += [r for r in memory.regions if r.kind == "alloc" and r not in self.carried]
        ev["launches"] = recorder.launches
        ev["torch_ops"] = watch.ops
        if lanes:
            ev["violations"] = lanes.violations[:20]
            ev["bytes"] = {"loaded": lanes.bytes_loaded, "stored": lanes.bytes_stored}
            if lanes.distinct_loads:
                ev["bytes"]["loaded_distinct"] = lanes.bytes_loaded_distinct()
            ev["masked_loads"] = [{"line": line, "other": value, "lanes": n}
                                  for (line, value), n in lanes.masked_loads.items()]
            ev["masked_stores"] = [{"line": line, "lanes": n} for line, n in lanes.masked_stores.items()]
            for hook in self.call_evidence:  # fusion's byte model at this size
                hook(ev, spec, size, inputs)
        if "exception" in ev:
            return ev, None
        ev.update(evaluate_output(out, ref, inputs, names, memory, recorder.launches, spec, lanes is not None,
                                  inputs[0].dtype, self.device, scale, lanes.store_spans if lanes else None,
                                  lanes.issued if lanes else None))
        ev["guard_hits"] = guard_evidence(memory)
        ev["inputs_mutated"] = mutated_inputs(guarded, clones, names)
        # Known mistakes are recognised at interpreter sizes: every model of the drill's would cost seconds at
        # CUDA's. A larger output is compared with the models this submission already matched at smaller sizes
        # (one float64 model, not all), so a mistake named at 17 keys is not "also wrong-values" at 1000.
        if ev.get("wrong") and spec.mistakes and not ev.get("unwritten"):
            small = ref.numel() <= MISTAKE_MAX_NUMEL
            if small or self.matched_mistakes:
                ev["mistake"] = self.which_mistake(out, inputs, ref, recorder.launches, probe,
                                                   only=None if small else self.matched_mistakes)
            if ev.get("mistake") and ev["mistake"]["name"] not in self.matched_mistakes:
                self.matched_mistakes.append(ev["mistake"]["name"])
        if lanes and not ev.get("mistake") and (ev.get("wrong") or ev.get("unwritten")) \
                and any(m.footprint for m in spec.mistakes) and ref.numel() <= MISTAKE_MAX_NUMEL:
            ev["mistake"] = self.which_footprint(out, inputs, memory, recorder.launches, probe)
        for ext in extensions:  # y right: the first wrong gradient becomes the values evidence
            ext.judge(ev, inputs, memory, recorder.launches, lanes is not None, self.device, evaluate_output,
                      lanes.store_spans if lanes else None, lanes.issued if lanes else None)
        mark_out_of_bounds(ev)
        return ev, out


def mark_out_of_bounds(ev: dict) -> None:
    """Tile map: '!' on each program that tried an out-of-bounds access (or the last tile, for a guard hit)."""
    tiles = ev.get("tiles")
    if not tiles:
        return
    status = list(tiles["status"])
    for v in ev.get("violations", []):
        if v["program"] < len(status):
            status[v["program"]] = "!"
    if any(g["after"] for g in ev.get("guard_hits", [])):
        status[-1] = "!"
    tiles["status"] = "".join(status)


if __name__ == "__main__":
    sys.exit(main())
