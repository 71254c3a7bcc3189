"""Record every Triton launch (kernel, grid, block size) on the GPU and under the interpreter alike.

Both `JITFunction.run` and `InterpretedFunction.run` take `(*args, grid, warmup, **kwargs)` in Triton 3.5-3.9, and
`@triton.autotune` / `@triton.heuristics` end in them, so wrapping `run` sees every launch exactly once.
"""
from __future__ import annotations

import inspect
from contextlib import contextmanager

from grader.core import catalog
from grader.core.frames import learner_line
from grader.core.meta import BLOCK_NAMES, block_along, block_of  # noqa: F401 - re-exported: launch records' readers


def _signature(kernel):
    fn = getattr(kernel, "fn", kernel)
    while hasattr(fn, "fn") and not inspect.isfunction(fn):
        fn = fn.fn
    return inspect.signature(fn)


def bound_arguments(kernel, args, kwargs) -> dict:
    sig = _signature(kernel)
    known = {k: v for k, v in kwargs.items() if k in sig.parameters}
    bound = sig.bind_partial(*args, **known)
    bound.apply_defaults()
    return dict(bound.arguments)


def tile_elems(meta: dict) -> int | None:
    """Elements in one program's tile: the product of the BLOCK-like constexprs (BLOCK_M x BLOCK_N in 2-D)."""
    sizes = [v for k, v in meta.items() if "BLOCK" in k.upper() and isinstance(v, int) and not isinstance(v, bool)]
    if not sizes:
        return None
    n = 1
    for v in sizes:
        n *= v
    return n


class ConflictingMeta(ValueError):
    """Triton's own message for a call that passes an autotuned meta-parameter (raised here for a pinned config)."""

    learner_facing = True


class LaunchRecorder:
    """Wraps Triton's launch path; `depth` > 0 while inside Triton (the torch watcher ignores that time)."""

    def __init__(self, learner_file: str, lanes=None):
        self.learner_file = learner_file
        self.lanes = lanes
        self.launches: list[dict] = []
        self.depth = 0
        self.budget = None  # grader.run.budget.Budget under the interpreter: a launch that would not fit is skipped
        self.frontend = None  # grader.watch.compile_check.FrontEnd under the interpreter: the compiler must accept it
        self._saved: list = []  # (class, attribute, original) for uninstall()


    def _wrap(self, cls):
        orig = cls.run
        self._saved.append((cls, "run", orig))
        recorder = self

        def run(kernel, *args, grid, warmup, **kwargs):
            if warmup:
                return orig(kernel, *args, grid=grid, warmup=warmup, **kwargs)
            record = {"kernel": getattr(kernel, "__name__", "?"), "grid": None, "programs": None,
                      "block": None, "meta": {}, "num_warps": kwargs.get("num_warps"),
                      "line": learner_line(recorder.learner_file)}
            meta = None
            try:
                meta = bound_arguments(kernel, args, kwargs)
                record["meta"] = {k: v for k, v in meta.items() if isinstance(v, (int, float, bool, str))}
                record["block"] = block_of(meta)
                record["tile_elems"] = tile_elems(meta)
                g = grid(meta) if callable(grid) else grid
                g = tuple(int(v) for v in (g if isinstance(g, (tuple, list)) else (g,)))
                record["grid"] = list(g)
                programs = 1
                for v in g:
                    programs *= v
                record["programs"] = programs
            except Exception:  # the real launch below reports the learner's mistake
                pass
            if recorder.frontend is not None and meta is not None:
                rejected = recorder.frontend.check(kernel, meta)
                if rejected:  # what a GPU would say before running anything
                    from grader.watch.compile_check import CompilerRejects
                    recorder.launches.append(record)
                    if rejected.get("internal"):  # the check itself failed: no verdict on the kernel
                        from grader.core.faults import InternalError
                        raise InternalError(rejected["internal"])
                    raise CompilerRejects(rejected)
            budget = recorder.budget
            launch_started = budget.check_launch(record["kernel"], record["programs"]) if budget else None
            recorder.launches.append(record)
            if recorder.lanes is not None:
                recorder.lanes.launch = len(recorder.launches) - 1
            recorder.depth += 1
            try:
                return orig(kernel, *args, grid=grid, warmup=warmup, **kwargs)
            finally:
                recorder.depth -= 1
                from grader.watch.torch_watch import mark_data  # (torch: imported in the child only)
                mark_data((args, kwargs))  # what a kernel was handed it may have written: the data from now on
                if budget:
                    budget.end_launch(record["kernel"], record["programs"], launch_started)

        # Python's own argument errors name the function: let them name Triton's, as they would without us.
        run.__name__, run.__qualname__ = orig.__name__, orig.__qualname__
        cls.run = run

    def install(self, interpreted: bool):
        if interpreted:
            from triton.runtime.interpreter import InterpretedFunction
            self._wrap(InterpretedFunction)
        else:
            from triton.runtime.jit import JITFunction
            self._wrap(JITFunction)
        # Autotuner benchmarking allocates and zeroes buffers with torch: not the learner's torch work.
        from triton.runtime import autotuner
        orig_run = autotuner.Autotuner.run
        recorder = self

        def autotuner_run(tuner, *args, **kwargs):
            # Triton checks this while benchmarking, which a pinned config skips: give its message all the same.
            conflicts = set(kwargs) & {k for c in getattr(tuner, "_drill_all_configs", tuner.configs)
                                       for k in c.kwargs}
            if conflicts:
                raise ConflictingMeta(catalog.text("check_details.conflicting_meta", "en",
                                                   names=", ".join(sorted(conflicts))))
            recorder.depth += 1
            try:
                return orig_run(tuner, *args, **kwargs)
            finally:
                recorder.depth -= 1

        self._saved.append((autotuner.Autotuner, "run", orig_run))
        autotuner_run.__name__, autotuner_run.__qualname__ = orig_run.__name__, orig_run.__qualname__
        autotuner.Autotuner.run = autotuner_run

    def uninstall(self):
        """Put Triton's launch path back (timing must not pay for the recorder's Python work)."""
        for cls, attr, orig in reversed(self._saved):
            setattr(cls, attr, orig)
        self._saved = []


def find_autotuners(module) -> list:
    """Autotuner objects among the learner module's globals (looking through @triton.heuristics)."""
    from triton.runtime.autotuner import Autotuner

    found = []
    for value in vars(module).values():
        obj = value
        for _ in range(4):
            if isinstance(obj, Autotuner):
                if obj not in found:
                    found.append(obj)
                break
            obj = getattr(obj, "fn", None)
            if obj is None:
                break
    return found


def config_label(config) -> str:
    parts = [f"{k}={v}" for k, v in config.kwargs.items()]
    parts.append(f"num_warps={config.num_warps}")
    return ", ".join(parts)


@contextmanager
def pinned(tuner, config):
    """Make an autotuner use exactly one config (no benchmarking: it needs a GPU driver)."""
    saved = (tuner.configs, dict(tuner.cache))
    tuner._drill_all_configs = saved[0]
    tuner.configs = [config]
    tuner.cache = {}
    try:
        yield
    finally:
        tuner.configs, tuner.cache = saved[0], saved[1]
        del tuner._drill_all_configs


@contextmanager
def benchmark_once(tuner):
    """The tuner's benchmarker replaced by one run of each config (the interpreter has no GPU to time on): its
    pre_hook (reset_to_zero, restore_value) and post_hook run around each, as in Triton's own benchmarking. Every
    config gets the same time, so the tuner keeps the first."""
    had = "do_bench" in vars(tuner)
    saved = vars(tuner).get("do_bench")
    vars(tuner)["do_bench"] = lambda kernel_call, quantiles=None, **kw: (kernel_call(), [1.0, 1.0, 1.0])[1]
    try:
        yield
    finally:
        if had:
            vars(tuner)["do_bench"] = saved
        else:
            vars(tuner).pop("do_bench", None)


def autotune_evidence(tuners: list, min_configs: int) -> dict:
    """What the autotune drills require of the learner's @triton.autotune: >= min_configs configs that differ in
    BLOCK and in num_warps, and a non-empty key naming kernel arguments. `problem` is None when all hold."""
    if not tuners:
        return {"problem": "none", "configs": 0}
    tuner = max(tuners, key=lambda t: len(t.configs))
    configs = list(tuner.configs)
    blocks = sorted({b for b in (block_of(dict(c.kwargs)) for c in configs) if b is not None})
    warps = sorted({c.num_warps for c in configs})
    keys = list(getattr(tuner, "keys", None) or [])
    ev = {"configs": len(configs), "labels": [config_label(c) for c in configs], "blocks": blocks,
          "warps": warps, "keys": keys, "problem": None}
    if len(configs) < min_configs:
        ev["problem"] = "few-configs"
    elif len(blocks) < 2:
        ev["problem"] = "same-block"
    elif len(warps) < 2:
        ev["problem"] = "same-warps"
    elif not keys:
        ev["problem"] = "no-key"
    return ev
