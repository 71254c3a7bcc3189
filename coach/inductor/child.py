"""The child side of `drill inductor`: torch.compile one drill's eager reference and capture what Inductor wrote.

Run as `python -m coach.inductor.child --drill NAME --out result.json --device cpu|cuda [--backend auto|triton|cpp]
[--cold]`. The parent (coach/inductor/capture.py) never imports torch for this; an Inductor failure ends here, as a JSON
`error`, never as a crash of the CLI.

Capture uses `torch._inductor.utils.run_and_get_code` (semi-private; present in torch 2.5-2.13), which patches
`GraphLowering.save_output_code`; if it is missing we patch that method ourselves.

On a machine with no GPU, Inductor's default CPU backend writes C++. To show Triton there we make Inductor's
CPU backend "triton" and make `torch.utils._triton.triton_backend` (private) answer with a CUDA target, so the
Triton source is generated and then run by Triton's interpreter (TRITON_INTERPRET=1, set before triton loads).
Any failure of that falls back to the C++ kernel, with the reason recorded.

A drill may ask for a torch.compile mode and Inductor config overrides (spec.compile_options, e.g. max-autotune with
only Triton GEMM templates). What the autotuner measured is recorded through `select_algorithm.add_feedback_saver`
(semi-private, present in torch 2.11 and 2.13), and Inductor's timing of a fused epilogue against an unfused one
through the scheduler's `fusion` log artifact.
"""
from __future__ import annotations

import argparse
import json
import logging
import math
import os
import re
import sys
import time
import traceback
from dataclasses import replace

from grader.core import catalog
from grader.reporting.i18n import resolve_lang


def _log(key: str, **kw) -> str:
    """A line of this child's log (shown under a failed compile) in the learner's language (DRILL_LANG)."""
    return catalog.text(f"coach.inductor_child.{key}", resolve_lang(), **kw)

# Environment variables that must hold before torch/triton are imported.
NO_TRITON_ENV = "DRILL_INDUCTOR_NO_TRITON"  # tests and users: force the C++ fallback on CPU
_SAVED: dict = {}  # what enable_cpu_triton replaced, for disable_cpu_triton


def enable_cpu_triton() -> tuple[bool, str | None]:
    """Make Inductor generate Triton for CPU tensors (private API, best effort). Returns (ok, reason if not)."""
    if os.environ.get(NO_TRITON_ENV):
        return False, f"{NO_TRITON_ENV} is set"
    try:
        import functools

        import torch._inductor.config as inductor_config
        import torch.utils._triton as torch_triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler.compiler import make_backend

        if not hasattr(torch_triton, "triton_backend") or not hasattr(inductor_config, "cpu_backend"):
            return False, "this torch has no torch.utils._triton.triton_backend / config.cpu_backend to patch"

        @functools.cache
        def cuda_target_backend():
            return make_backend(GPUTarget("cuda", 90, 32))

        cuda_target_backend()  # fail here, not inside Inductor, if the target cannot be made
        _SAVED["triton_backend"] = torch_triton.triton_backend
        _SAVED["cpu_backend"] = inductor_config.cpu_backend
        torch_triton.triton_backend = cuda_target_backend
        inductor_config.cpu_backend = "triton"
        return True, None
    except Exception as e:  # private API: any change in torch/triton lands here
        return False, f"{type(e).__name__}: {e}"


def disable_cpu_triton() -> None:
    try:
        import torch._inductor.config as inductor_config
        import torch.utils._triton as torch_triton

        if "triton_backend" in _SAVED:
            torch_triton.triton_backend = _SAVED.pop("triton_backend")
        if "cpu_backend" in _SAVED:
            inductor_config.cpu_backend = _SAVED.pop("cpu_backend")
    except Exception:
        pass


# Where Triton runs under the interpreter (a CPU with the private patch), max-autotune needs these, each shown with its
# reason beside the kernel (coach/inductor/template.py). Measured with torch 2.13 on a 2-core CPU machine.
INTERPRETER_OVERRIDES = {
    # the module Inductor writes to time a fused epilogue against an unfused one, for a CPU device, fails to import
    # (IndentationError in its generated imports): the epilogue is fused without that benchmark
    "benchmark_epilogue_fusion": False,
    # each mm config takes seconds per call under the interpreter (all 20 candidates: 27 s of autotuning, measured)
    "test_configs.max_mm_configs": 2,
}


def compile_settings(compile_options, interpreted: bool) -> dict:
    """What torch.compile gets for a drill: {"mode", "options" (the mode's Inductor settings with the drill's
    overrides, passed as torch.compile(options=...)), "interpreter_overrides" (applied), "ignored" (keys this torch
    does not have, left out)}. None when the drill asks for nothing: a plain torch.compile(fn)."""
    if compile_options is None:
        return None
    import torch._inductor
    import torch._inductor.config as inductor_config

    options = dict(torch._inductor.list_mode_options(compile_options.mode) or {})
    options.update(compile_options.options)
    applied = {}
    if interpreted and options.get("max_autotune"):
        applied = dict(INTERPRETER_OVERRIDES)
        options.update(applied)
    known = inductor_config.get_config_copy()
    ignored = [k for k in options if k not in known]
    for k in ignored:
        options.pop(k)
    return {"mode": compile_options.mode, "options": options,
            "interpreter_overrides": {k: v for k, v in applied.items() if k in known}, "ignored": ignored}


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
FUSION_LOGGER = "torch._inductor.scheduler.__fusion"  # torch._logging.getArtifactLogger(scheduler, "fusion")


class AutotuneRecorder(logging.Handler):
    """What Inductor's autotuner measured for each templated op (every choice: name, description, ms), and its
    benchmark of a template with the epilogue fused against the best choice plus a separate epilogue kernel."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.ops: list[dict] = []
        self.fusion: list[str] = []
        self.errors: list[str] = []
        self._logger = None
        self._level = None

    def install(self) -> "AutotuneRecorder":
        try:
            from torch._inductor import select_algorithm
            select_algorithm.add_feedback_saver(self.feedback)
        except Exception as e:  # semi-private: a torch without it records nothing, and says so
            self.errors.append(f"add_feedback_saver: {type(e).__name__}: {e}")
        self._logger = logging.getLogger(FUSION_LOGGER)
        self._level = self._logger.level
        self._logger.setLevel(logging.DEBUG)
        self._logger.addHandler(self)
        return self

    def uninstall(self) -> None:
        if self._logger is not None:
            self._logger.removeHandler(self)
            self._logger.setLevel(self._level)
        try:
            from torch._inductor.select_algorithm import get_algorithm_selector_cache
            fns = get_algorithm_selector_cache().feedback_saver_fns
            if self.feedback in fns:
                fns.remove(self.feedback)
        except Exception:
            pass

    def emit(self, record) -> None:
        try:
            msg = _ANSI.sub("", record.getMessage())
        except Exception:
            return
        if "(benchmark)" in msg:
            self.fusion.append(msg)

    def feedback(self, timings, name, input_nodes, *rest) -> None:
        choices = []
        for choice, ms in timings.items():
            ms = float(ms)
            choices.append({"name": getattr(choice, "name", str(choice)),
                            "description": str(getattr(choice, "description", "") or ""),
                            "kind": type(choice).__name__, "ms": ms if math.isfinite(ms) else None})
        choices.sort(key=lambda c: (c["ms"] is None, c["ms"] or 0.0))
        shapes = []
        for node in input_nodes or []:
            try:
                shapes.append("x".join(str(s) for s in node.get_size()))
            except Exception:
                shapes.append("?")
        entry = {"op": name, "inputs": shapes, "choices": choices}
        # the same op timed again (e.g. the multi-template's timings asked twice) replaces its first record
        self.ops = [o for o in self.ops if (o["op"], o["inputs"]) != (name, shapes)] + [entry]


def code_capturer():
    """A function (fn, *args) -> (result, [output code strings]): the official helper if present, else our own."""
    try:
        from torch._inductor.utils import run_and_get_code
        return run_and_get_code, "torch._inductor.utils.run_and_get_code"
    except ImportError:
        pass
    from unittest import mock

    import torch
    from torch._inductor.graph import GraphLowering

    def run_and_get_code(fn, *args, **kwargs):
        codes: list[str] = []
        with mock.patch.object(GraphLowering, "save_output_code", lambda code: codes.append(code)):
            torch._dynamo.reset()
            result = fn(*args, **kwargs)
        return result, list(dict.fromkeys(codes))

    return run_and_get_code, "patched GraphLowering.save_output_code"


def autotuner_configs() -> list[dict]:
    """Configs of the Triton kernels Inductor loaded (on a GPU `launchers` holds the one picked)."""
    found, seen = [], set()
    try:
        from torch._inductor.codecache import PyCodeCache
        mods = PyCodeCache.modules
        mods = list(mods.values()) if isinstance(mods, dict) else list(mods)
    except Exception:
        return found
    for mod in mods:
        for name, obj in list(vars(mod).items()):
            if not (hasattr(obj, "configs") and hasattr(obj, "launchers")) or id(obj) in seen:
                continue
            seen.add(id(obj))
            entry = {"kernel": name, "configs": [], "chosen": []}
            for c in getattr(obj, "configs", []) or []:
                entry["configs"].append(dict(getattr(c, "kwargs", {}), num_warps=getattr(c, "num_warps", None)))
            for launcher in getattr(obj, "launchers", []) or []:
                c = getattr(launcher, "config", None)
                if c is not None:
                    entry["chosen"].append(dict(getattr(c, "kwargs", {}), num_warps=getattr(c, "num_warps", None)))
            found.append(entry)
    return found


def compiled(fn, settings):
    import torch

    return torch.compile(fn, options=settings["options"]) if settings and settings["options"] else torch.compile(fn)


def generate_only(fn, inputs, kwargs, settings=None) -> list[str]:
    """Inductor's code without running it, the way `torch._inductor.utils.get_code` (semi-private) collects it:
    GraphLowering's codegen is kept and its module replaced by one that does nothing. The dummy module returns no
    outputs, so a function whose graph has several (a forward + backward through torch.func.vjp) trips an
    assertion after the code was generated: what was collected by then is the answer. [] if nothing was."""
    codes: list[str] = []
    try:
        from unittest import mock

        import torch
        from torch._inductor.graph import GraphLowering

        import torch._inductor.config as inductor_config

        def keep(code: str) -> None:
            codes.append(code)

        def codegen_only(self):
            class DummyModule:
                def call(self, *args, **kwargs):
                    return None

            wrapper_code, kernel_code = self.codegen_with_cpp_wrapper() if self.cpp_wrapper else self.codegen()
            keep(wrapper_code.value)
            if kernel_code:
                keep(kernel_code.value)
            return DummyModule()

        # a cache hit would skip codegen, and with it the code collected here
        with mock.patch.object(GraphLowering, "compile_to_module", codegen_only), \
                mock.patch.object(GraphLowering, "save_output_code", keep), \
                inductor_config.patch(fx_graph_cache=False):
            torch._dynamo.reset()
            try:
                with torch.no_grad():
                    compiled(fn, settings)(*inputs, **kwargs)
            except Exception as e:
                if not codes:
                    raise
                print(_log("code_then_failed", type=type(e).__name__), file=sys.stderr)
    except Exception as e:
        print(_log("get_code_failed", type=type(e).__name__, message=e), file=sys.stderr)
        return []
    return list(dict.fromkeys(codes))


# Two compiled results are compared with eager at these (rtol, atol): float16 outputs differ by rounding and
# accumulation order (a K=65 matmul: 2 ulps at |x| ~ 8, i.e. 0.016), float32 ones by contracted multiply-adds.
MATCH_TOLERANCE = {"float16": (1e-2, 2e-2), "bfloat16": (2e-2, 5e-2)}


def compile_and_run(fn, inputs, kwargs, device: str, settings: dict | None = None) -> dict:
    import torch

    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    recorder = None
    try:  # every Triton launch (grid, XBLOCK) under the interpreter; on a GPU Inductor launches on its own
        from grader.watch.launches import LaunchRecorder
        recorder = LaunchRecorder(learner_file="")
        recorder.install(interpreted=os.environ.get("TRITON_INTERPRET") == "1")
    except Exception:
        recorder = None
    try:
        from torch._dynamo.utils import counters
        counters.clear()
    except Exception:
        counters = None

    compiled_fn = compiled(fn, settings)
    tuner = AutotuneRecorder().install()

    def two_calls():
        sync()
        t0 = time.perf_counter()
        out = compiled_fn(*inputs, **kwargs)
        sync()
        t1 = time.perf_counter()
        compiled_fn(*inputs, **kwargs)
        sync()
        t2 = time.perf_counter()
        return out, t1 - t0, t2 - t1

    run_and_get_code, how = code_capturer()
    with torch.no_grad():
        try:
            (out, first, second), codes = run_and_get_code(two_calls)
        finally:
            tuner.uninstall()
        eager = fn(*inputs, **kwargs)
        sync()
        t0 = time.perf_counter()
        fn(*inputs, **kwargs)
        sync()
        eager_s = time.perf_counter() - t0
    result = {"codes": list(codes), "capture_api": how, "first_call_s": first, "second_call_s": second,
              "eager_call_s": eager_s, "launches": recorder.launches if recorder else [],
              "autotuners": autotuner_configs(), "autotune": tuner.ops, "fusion_benchmarks": tuner.fusion}
    if tuner.errors:
        result["autotune_errors"] = tuner.errors
    if counters is not None:
        ind = counters.get("inductor", {})
        result["fx_graph_cache"] = {"hit": int(ind.get("fxgraph_cache_hit", 0)),
                                    "miss": int(ind.get("fxgraph_cache_miss", 0)),
                                    "bypass": int(ind.get("fxgraph_cache_bypass", 0))}
    try:
        o, e = (out[0], eager[0]) if isinstance(out, (tuple, list)) else (out, eager)
        rtol, atol = MATCH_TOLERANCE.get(str(o.dtype).replace("torch.", ""), (1e-4, 1e-5))
        result["matches_eager"] = bool(torch.allclose(o.float().cpu(), e.float().cpu(), rtol=rtol, atol=atol))
        result["max_abs_diff"] = float((o.double().cpu() - e.double().cpu()).abs().max())
    except Exception as err:
        result["matches_eager"] = None
        result["compare_error"] = str(err)
    return result


def capture(drill: str, device: str, backend: str) -> dict:
    import torch

    import drills
    from coach.inductor.capture import pick_size

    spec = drills.get_spec(drill)
    opts = spec.compile_options
    fn = (opts.function if opts is not None else None) or spec.eager or spec.reference
    size = opts.cuda_size if device == "cuda" and opts and opts.cuda_size is not None else pick_size(spec.sizes)
    inputs = spec.make_inputs(size, torch.Generator().manual_seed(0))
    inputs = inputs if isinstance(inputs, (tuple, list)) else (inputs,)
    if device == "cuda":
        inputs = [t.cuda() if isinstance(t, torch.Tensor) else t for t in inputs]
    kind = "compile_options.function" if opts is not None and opts.function else ("eager" if spec.eager else "reference")
    info = {"drill": spec.name, "size": size, "function": kind,
            "function_name": getattr(fn, "__name__", "?"), "device": device, "torch": torch.__version__,
            "inputs": [{"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", "")}
                       for t in inputs if isinstance(t, torch.Tensor)]}
    if opts is not None:
        info["compare_options"] = opts.compare
    try:
        import triton
        info["triton"] = triton.__version__
    except Exception:
        info["triton"] = None

    def run(interpreted: bool, options=None) -> dict:
        settings = compile_settings(opts if options is None else replace(opts, options=options), interpreted)
        return dict(compile_and_run(fn, inputs, spec.kwargs, device, settings), compile=settings)

    def run_cpp() -> dict:
        """The C++ backend. Its failure with the drill's options (Triton-only GEMMs leave the C++ backend no choice:
        NoValidChoicesError) is kept, and the compile is done again with the `compare` options, if there are any."""
        try:
            return run(False)
        except Exception as e:
            if opts is None or opts.compare is None:
                raise
            torch._dynamo.reset()
            failed = {"options": dict(opts.options), "type": type(e).__name__, "message": str(e)[:1500]}
            return dict(run(False, dict(opts.compare)), options_failed=failed)

    if device == "cuda":
        info["device_name"] = torch.cuda.get_device_name()
        result = dict(info, lang="triton", path="cuda", **run(False))
        if opts is not None and opts.compare is not None:
            result["compare"] = compare_run(fn, inputs, spec.kwargs, device, opts)
        return result
    why = "--backend cpp was asked for"
    if backend in ("auto", "triton"):
        ok, why = enable_cpu_triton()
        if ok:
            try:
                return dict(info, lang="triton", path="cpu-triton-interpreter", **run(True))
            except Exception as e:
                why = f"Inductor failed with the Triton CPU patch: {type(e).__name__}: {str(e)[:500]}"
                torch._dynamo.reset()
                triton_codes = generate_only(fn, inputs, spec.kwargs, compile_settings(opts, True))
                disable_cpu_triton()
                torch._dynamo.reset()
                if triton_codes and backend == "auto":
                    # The source was generated but the interpreter cannot run it (e.g. some reductions): show it,
                    # and take timings and the correctness check from the C++ kernel.
                    cpp = run_cpp()
                    cpp["cpp_codes"] = cpp.pop("codes")
                    return dict(info, lang="triton", path="cpu-triton-source-only", interpreter_error=why,
                                codes=triton_codes, timing_from="cpu-cpp", **cpp)
        if backend == "triton":
            raise RuntimeError(_log("no_triton_source", why=why))
    return dict(info, lang="cpp", path="cpu-cpp", why_no_triton=why, **run_cpp())


COMPARE_KEYS = ("codes", "compile", "autotune", "fusion_benchmarks", "autotune_errors", "first_call_s",
                "second_call_s", "matches_eager", "max_abs_diff", "fx_graph_cache")


def compare_run(fn, inputs, kwargs, device: str, opts) -> dict:
    """The second compile (CUDA): the same mode with `opts.compare` in place of `opts.options`. Its failure is recorded,
    never the reason the first compile's view is lost."""
    try:
        settings = compile_settings(replace(opts, options=dict(opts.compare)), False)
        result = compile_and_run(fn, inputs, kwargs, device, settings)
        result["compile"] = settings
        return {k: result[k] for k in COMPARE_KEYS if k in result}
    except Exception as e:
        return {"error": {"type": type(e).__name__, "message": str(e)[:1000]}}


def device_limit_facts(drill: str, result: dict) -> dict | None:
    """For a drill whose device has launch limits: Inductor's launch against them, and where the installed Inductor
    decides XBLOCK, num_warps and the grid (coach/inductor/limits.py). None for other drills, or if that fails."""
    try:
        import drills
        from coach.inductor.limits import facts
        from grader.core.data import numel_of

        size = result.get("size")
        return facts(drills.get_spec(drill), result, numel_of(size) if size is not None else None)
    except Exception as e:  # a report beside the kernel: never the reason the command fails
        print(_log("limits_failed", type=type(e).__name__, message=e), file=sys.stderr)
        return None


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--drill", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    p.add_argument("--backend", choices=["auto", "triton", "cpp"], default="auto")
    p.add_argument("--cold", metavar="DIR", default=None,
                   help="fresh Inductor and Triton caches in DIR, which must not exist (an honest cold compile)")
    a = p.parse_args(argv)
    speedups = None
    if a.device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported
        try:  # the interpreter's speedups a CPU grade runs with (value for value the same: tests/test_interp_speed.py)
            from grader.watch.interp_speed import interpreter_speedups
            speedups = interpreter_speedups()
        except Exception as e:  # noqa: BLE001 - best effort: the capture runs without them
            speedups = {"error": f"{type(e).__name__}: {e}"}
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # triton 3.9 warns when unset; 1 is its default
    if a.cold:
        os.makedirs(a.cold)
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = a.cold
        os.environ["TRITON_CACHE_DIR"] = os.path.join(a.cold, "triton")
    started = time.perf_counter()
    try:
        result = capture(a.drill, a.device, a.backend)
        result["cold_cache"] = bool(a.cold)
        result["interpreter_speedups"] = speedups
        result["limits"] = device_limit_facts(a.drill, result)
    except BaseException as e:
        result = {"error": {"type": type(e).__name__, "message": str(e)[:2000],
                            "traceback": traceback.format_exc()[-4000:]}}
    result["elapsed_s"] = time.perf_counter() - started
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(result, f, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
