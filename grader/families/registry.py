"""The one door to the drill families: which rule modules a spec turns on, and their hooks, found by name.

A rule module is a module of grader/families/ that defines `applies(spec) -> bool` (it reads the spec field of its
own: `device_limits`, `grads`, `compile_lab`; or its name in `spec.rules`, for a family that has no field in
grader/core/spec.py). Its report parts live in the module itself or in grader/reporting/<name>_report.py. The
pipeline never imports a family module: it asks this registry for a hook by name and calls every rule of the spec
that defines it, in order (a module's `RULE_ORDER`, then its name). A hook a family does not define is skipped.

Hooks, by the stage that calls them (arguments as the caller's docstring says):

    child (grader/run/child.py)
        child_grade(spec, module, entry, device, learner_file, lanes, recorder, runner_cls) -> result dict
                                  replaces the call loop: the first rule that defines it grades the file alone
        launch_rules(spec) -> dict          merged into the rules `judge.diagnose.classify` reads
        contract_calls(spec, module, learner_file) -> (pseudo-calls, summary | None)   no launch
        before_classify(ev, module, spec, learner_file)      a call's evidence, before it is classified
        after_classify(ev, spec) -> (category, detail)       a call's category, refined
        call_extension(spec, inputs, guarded, names, memory, seed, kwargs) -> object
                                  per call: .run(out, watch) under the watch, .judge(ev, ...) after the values
        call_evidence(ev, spec, size, inputs)                an interpreted call's extra evidence
        cuda_info(spec, entry, learner_file) -> dict         CUDA, every call passed: entries for the result's info
    parent (grader/run/runner.py)
        check_rows(spec) -> [(check name, categories)]       rows of the verdict's checks, after the shared ones
        call_line(detail) -> line | None                     the line a failing call's detail names
        annotate(v, calls, runs, spec)                       the merged verdict, before its focus is picked
        conclude(v, runs, spec)                              the merged verdict, last (may fail a pass)
    report (grader/reporting/report.py)
        what_and_fix(v, spec, lang, fmt) -> (what, fix) | None   the first rule that answers explains the verdict
        explain_kw(v, spec, lang, category, detail) -> (key, format arguments) | None
        render_parts(v, spec, lang) -> [rich renderables]
    timing (grader/speed/timing.py, grader/speed/bench.py)
        timed_steps(spec, fns, args, names, kwargs) -> {label: step} | None   a whole step timed instead of the forward
        step_maker(spec, first, args, names, kwargs) -> (fn -> step)        the same, one function at a time
"""
from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from functools import lru_cache
from pathlib import Path

PACKAGE = "grader.families"
REPORTS = "grader.reporting"
REPORT_HOOKS = ("what_and_fix", "explain_kw", "render_parts")


@lru_cache(maxsize=None)
def families() -> tuple:
    """Every rule module of grader/families/, in order: (name, module). Helpers (no `applies`) are left out."""
    found = []
    for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if info.name == "registry" or info.ispkg:
            continue
        module = importlib.import_module(f"{PACKAGE}.{info.name}")
        if callable(getattr(module, "applies", None)):
            found.append((getattr(module, "RULE_ORDER", 100), info.name, module))
    return tuple((name, module) for _, name, module in sorted(found, key=lambda f: (f[0], f[1])))


def names() -> list[str]:
    return [name for name, _ in families()]


@lru_cache(maxsize=None)
def report_module(name: str):
    """grader/reporting/<name>_report.py, if the family has one."""
    full = f"{REPORTS}.{name}_report"
    return importlib.import_module(full) if importlib.util.find_spec(full) is not None else None


def for_spec(spec) -> list[tuple]:
    """The rule modules this spec turns on, in order. A name in `spec.rules` that no module answers to is a bug in
    the spec, drill's own (AssertionError with the known names), never the learner's."""
    known = dict(families())
    for name in getattr(spec, "rules", None) or {}:
        if name not in known:
            raise AssertionError(f"spec {spec.name!r} asks for rules {name!r}; families: {', '.join(known)}")
    asked = getattr(spec, "rules", None) or {}
    return [(name, m) for name, m in families() if name in asked or m.applies(spec)]


def hooks(spec, hook: str) -> list:
    """The functions named `hook` of the spec's rules, in order (report hooks: the rule module's own, else its
    report module's)."""
    out = []
    for name, module in for_spec(spec):
        fn = getattr(module, hook, None)
        if fn is None and hook in REPORT_HOOKS:
            fn = getattr(report_module(name), hook, None)
        if fn is not None:
            out.append(fn)
    return out


def first(spec, hook: str, *args, **kwargs):
    """The first answer other than None of the spec's rules to `hook` (None when none answers)."""
    for fn in hooks(spec, hook):
        got = fn(*args, **kwargs)
        if got is not None:
            return got
    return None


def call_all(spec, hook: str, *args, **kwargs) -> list:
    """Every answer of the spec's rules to `hook`, in order."""
    return [fn(*args, **kwargs) for fn in hooks(spec, hook)]
