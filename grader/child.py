"""The child process that runs the learner's code. Started by `grader.runner`; never imported by the CLI's parent
process. The warm worker (grader.worker) imports it once and calls `run` in a fresh fork for each grade.

    python -m grader.child --file F --drill NAME --device cpu|cuda --seed S --out RESULT.json

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

from coach.store import atomic_write_text


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m grader.child")
    ap.add_argument("--file", required=True)
    ap.add_argument("--drill", required=True)
    ap.add_argument("--device", choices=("cpu", "cuda"), required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true", help="fewer seeds (the interpreter pass beside a CUDA run)")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    run(parse_args(argv), time.perf_counter())


def run(a: argparse.Namespace, started: float):
    """Grade, write the result file, and end the process (never returns).

    Both kinds of grading process end here: a cold `python -m grader.child` (main above) and a fork of the warm
    worker (grader.worker), which has torch and Triton imported already and calls this in the fresh fork."""
    # On a timeout the parent sends SIGUSR1 first: the traceback names the line the learner's code is stuck on.
    faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=False)
    interpreted = a.device == "cpu"
    if interpreted:
        os.environ["TRITON_INTERPRET"] = "1"
        from .interp_speed import install as install_speedups
        install_speedups()
    else:
        os.environ.pop("TRITON_INTERPRET", None)
    result = {"device": a.device, "interpreted": interpreted, "calls": [], "file": a.file}
    try:
        result.update(grade(a, interpreted, started))
        result["complete"] = True
    except BaseException as e:  # noqa: BLE001 - learner code that escaped the per-call handlers, or a grader bug
        result["fatal"] = {"stage": "grade", "type": type(e).__name__, "message": str(e)[:800] or type(e).__name__}
    result["elapsed_s"] = round(time.perf_counter() - started, 3)
    atomic_write_text(Path(a.out), json.dumps(result))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # never wait for threads the learner's code left running


def grade(a, interpreted: bool, started: float) -> dict:
    import torch
    import triton  # after TRITON_INTERPRET is settled

    phases = {"imports_s": round(time.perf_counter() - started, 3)}  # where a grade's seconds go

    from drills import get_spec
    from .diagnose import classify
    from .evaluate import describe_exception
    from .lanes import LaneChecker
    from .launches import LaunchRecorder, autotune_evidence, config_label, find_autotuners
    from .memory import Memory
    from .torch_watch import TorchWatch

    spec = get_spec(a.drill)
    learner_file = os.path.realpath(a.file)
    info = {"triton": triton.__version__, "torch": torch.__version__.split("+")[0], "phases": phases}
    if a.device == "cuda":
        if not torch.cuda.is_available():
            return {**info, "fatal": {"stage": "device", "type": "NoCuda", "message": "no CUDA device is available"}}
        info["device_name"] = torch.cuda.get_device_name()

    lanes = LaneChecker(learner_file) if interpreted else None
    if lanes:
        lanes.install()
        from .interp_compat import install as install_compat, install_bf16_guard
        from .libdevice_cpu import install as install_libdevice
        install_compat()  # Triton 3.6: range() over a runtime scalar
        install_bf16_guard()  # bf16 math would run on raw bits: stop with a message instead
        install_libdevice()  # before the learner's import: libdevice.* runs as numpy, or stops with a clear error
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
        return {**info, "fatal": {"stage": "import", **describe_exception(e, learner_file)}}
    entry = getattr(module, spec.entry, None)
    if not callable(entry):
        names = [n for n, v in vars(module).items() if inspect.isfunction(v) and v.__module__ == module.__name__]
        return {**info, "fatal": {"stage": "entry", "type": "MissingEntry", "entry": spec.entry,
                                  "found": names, "message": f"no function `{spec.entry}` in the file"}}

    # An autotuned kernel is graded once per config: a grid that ignores the chosen BLOCK fails on every device.
    configs = [(None, None)]
    for tuner in find_autotuners(module):
        if len(tuner.configs) > 1:
            configs = [(tuner, c) for c in tuner.configs]
            break
    info["autotune_configs"] = [config_label(c) for _, c in configs if c is not None]

    rules = {"value_category": spec.value_category, "masked_other": spec.masked_other}
    if spec.max_programs is not None:
        rules["max_programs"] = spec.max_programs
        if a.device == "cuda" and spec.max_programs_per_sm:
            sms = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
            rules["max_programs"] = spec.max_programs_per_sm * sms
        info["max_programs"] = rules["max_programs"]
    if spec.autotune_min_configs:
        rules["autotune"] = info["autotune"] = autotune_evidence(find_autotuners(module), spec.autotune_min_configs)

    runner = CallRunner(spec, entry, a.device, learner_file, lanes, recorder, keep_inputs=len(configs) > 1,
                        carried=module_memory.regions)
    # (size, probe, seeds): the spec's sizes and probes with every seed; CUDA's large sizes once (their inputs cost
    # seconds to make).
    seeds = 1 if a.quick else spec.seeds
    jobs = [(size, None, seeds) for size in spec.sizes]
    if a.device == "cuda":
        jobs += [(size, None, 1) for size in spec.cuda_sizes]
    jobs += [(size, p, seeds) for p in spec.probes for size in p.sizes]
    calls = []
    t0 = time.perf_counter()
    for tuner, config in configs:
        for size, probe, n_seeds in jobs:
            for s in range(n_seeds):
                for ev in runner.pair(size, a.seed * 1000 + s, tuner, config, probe):
                    ev["config"] = config_label(config) if config is not None else None
                    if probe is not None:
                        ev["probe"] = probe.name
                        ev["probe_category"] = probe.category or spec.value_category
                    ev["category"], ev["detail"] = classify(ev, spec.max_launches, rules)
                    calls.append(ev)
                    if ev["category"] == "crash":  # a CUDA fault poisons the context: stop here
                        return {**info, "calls": calls}
    phases["calls_s"] = round(time.perf_counter() - t0, 3)
    if a.device == "cuda" and configs[0][0] is not None:
        info["autotune_picked"] = picked_config(runner, configs[0][0], jobs[-1][0], a.seed)
    if a.device == "cuda" and spec.speedup_min is not None and not any(c["category"] for c in calls):
        recorder.uninstall()
        t0 = time.perf_counter()
        info["timing"] = run_timing(spec, entry, info["device_name"], learner_file)
        phases["timing_s"] = round(time.perf_counter() - t0, 3)
    return {**info, "calls": calls}


def run_timing(spec, entry, device_name, learner_file) -> dict:
    """The speed gate (grader.timing); a learner exception while timing is reported, not raised."""
    from .evaluate import describe_exception
    from .timing import speed_report

    try:
        return speed_report(spec, entry, device_name)
    except Exception as e:  # noqa: BLE001
        exc = describe_exception(e, learner_file)
        if exc["line"] is None:  # the failure is in the grader's timing, not the learner's code: no verdict on it
            return {"category": None, "skipped": f"{exc['type']}: {exc['message'].splitlines()[0][:200]}"}
        return {"category": "error", "exception": exc}


def picked_config(runner, tuner, size, seed) -> str | None:
    """One unpinned call on CUDA: the config the autotuner chose for the largest size."""
    from .launches import config_label

    try:
        runner.call(size, seed, 0, None, None)
        best = getattr(tuner, "best_config", None)
        return config_label(best) if best is not None else None
    except Exception:  # noqa: BLE001 - reporting only
        return None


class CallRunner:
    """Calls the learner's entry point on guarded inputs and collects the evidence of each call."""

    def __init__(self, spec, entry, device, learner_file, lanes, recorder, keep_inputs=False, carried=()):
        self.spec, self.entry, self.device = spec, entry, device
        self.learner_file, self.lanes, self.recorder = learner_file, lanes, recorder
        self.keep_inputs, self.cache = keep_inputs, {}
        # Regions that outlive a call: the module's tensors, and every output the learner allocated (a wrapper
        # may cache one and write it again: that is the stale-output check's business, not out-of-bounds).
        self.carried = list(carried)
        self.returned: list = []
        try:
            self.arg_names = list(inspect.signature(entry).parameters)
        except (TypeError, ValueError):
            self.arg_names = []

    def pair(self, size, seed, tuner, config, probe=None):
        """Two calls with equal shapes and different values; the second also checks the first result was not reused."""
        import torch

        first_out = first_snapshot = None
        for call in (0, 1):
            ev, out = self.call(size, seed, call, tuner, config, probe)
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
            yield ev

    def inputs_and_reference(self, size, seed, call, probe):
        """The inputs of one call and their float64 reference; kept when an autotuned kernel is graded per config,
        since every config gets the same inputs (at 2^24 elements they take seconds to make)."""
        import torch

        key = (json.dumps(size), seed, call, probe.name if probe is not None else None)
        if key in self.cache:
            return self.cache[key]
        gen = torch.Generator().manual_seed(seed * 2 + call)
        inputs = (probe.make_inputs if probe is not None else self.spec.make_inputs)(size, gen)
        as64 = [t.double() for t in inputs]
        ref = self.spec.reference(*as64, **self.spec.kwargs)
        scale = self.spec.error_scale(*as64, **self.spec.kwargs) if self.spec.error_scale else None
        if self.keep_inputs:
            self.cache[key] = (inputs, ref, scale)
        return inputs, ref, scale

    def call(self, size, seed, call, tuner, config, probe=None):
        import torch
        from contextlib import nullcontext

        from .evaluate import describe_exception, evaluate_output, guard_evidence, mutated_inputs
        from .launches import pinned
        from .memory import Memory
        from .torch_watch import TorchWatch

        spec, lanes, recorder = self.spec, self.lanes, self.recorder
        inputs, ref, scale = self.inputs_and_reference(size, seed, call, probe)
        memory = Memory(self.device, self.carried)
        names = [self.arg_names[i] if i < len(self.arg_names) else str(i) for i in range(len(inputs))]
        guarded = [memory.place(t, f"input {names[i]}") for i, t in enumerate(inputs)]
        clones = [t.clone() for t in guarded]
        ev = {"size": size if isinstance(size, int) else list(size), "seed": seed, "call": call}
        recorder.launches = []
        watch = TorchWatch(memory, recorder, self.learner_file)
        if lanes:
            lanes.start(memory)
        out = None
        started = time.perf_counter()
        try:
            with (pinned(tuner, config) if tuner is not None else nullcontext()):
                with watch:
                    out = self.entry(*guarded, **spec.kwargs)
            if self.device == "cuda":
                torch.cuda.synchronize()
        except BaseException as e:  # noqa: BLE001 - the learner's exception (even sys.exit) is evidence
            ev["exception"] = describe_exception(e, self.learner_file)
        finally:
            if lanes:
                lanes.stop()
        ev["wall_s"] = round(time.perf_counter() - started, 4)
        self.carried += [r for r in memory.regions if r.kind == "alloc" and r not in self.carried]
        ev["launches"] = recorder.launches
        ev["torch_ops"] = watch.ops
        if lanes:
            ev["violations"] = lanes.violations[:20]
            ev["bytes"] = {"loaded": lanes.bytes_loaded, "stored": lanes.bytes_stored}
            ev["masked_loads"] = [{"line": line, "other": value, "lanes": n}
                                  for (line, value), n in lanes.masked_loads.items()]
            ev["masked_stores"] = [{"line": line, "lanes": n} for line, n in lanes.masked_stores.items()]
            if spec.bytes_proof and spec.byte_model is not None and inputs:
                ev["bytes_model"] = dict(spec.byte_model(size), n=inputs[0].numel())
        if "exception" in ev:
            return ev, None
        ev.update(evaluate_output(out, ref, inputs, names, memory, recorder.launches, spec, lanes is not None,
                                  inputs[0].dtype, self.device, scale, lanes.store_spans if lanes else None))
        ev["guard_hits"] = guard_evidence(memory)
        ev["inputs_mutated"] = mutated_inputs(guarded, clones, names)
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
