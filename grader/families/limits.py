"""A device with launch limits, and a launch heuristic checked as a pure function (spec.device_limits,
spec.contract). Generic: nothing here knows a drill's name.

- `config_problems` (grader/core/contract.py): the rules a heuristic's result must keep (a spec's contract
  check is built from it);
- `contract_calls` (child): call the contract's function at every input, no kernel launched; one failing
  pseudo-call per category, at the smallest input that shows it;
- `rules`, `expect_launch`, `refused_launch` (child, diagnose): a launch the device would refuse, or one that is
  not what the heuristic picked for that size;
- `field_line`: the line of the learner's function that sets one key of the dict it returns;
- `cuda_timing` (CUDA child): the learner's capped launch against the same kernel with an uncapped grid, shown;
- `annotate` (parent): the check row and the verdict's `device_limits` JSON block.
"""
from __future__ import annotations

import ast
from collections import Counter

from grader.core import catalog
from grader.core.contract import config_problems, is_pow2  # noqa: F401 - config_problems: re-exported

TRITON_DEFAULT_WARPS = 4  # what a launch without num_warps= gets (Triton 3.5-3.9)
CHECK_NAME = "launches within the device's limits"
RULE_ORDER = 20  # grader/families/registry.py: after fusion's launch count, before training and the compile labs


def applies(spec) -> bool:
    """A device with launch limits (spec.device_limits) or a heuristic checked as a pure function (spec.contract)."""
    return spec.device_limits is not None or spec.contract is not None


# -- the rules ------------------------------------------------------------------------------------------------------

def rules(spec) -> dict:
    """What `diagnose.classify` needs from the spec: the cap on programs (tiles missed or stored twice by a capped
    grid are `persistent`) and the device's limits (a launch beyond them is refused)."""
    lim = spec.device_limits
    if lim is None:
        return {}
    out = {"max_programs": lim.max_programs,
           "device_limits": {"device": lim.name, "max_programs": lim.max_programs, "max_warps": lim.max_warps,
                             "min_block": lim.min_block, "max_block": lim.max_block}}
    if spec.contract is not None:
        out["launch_fields"] = {k: list(v) for k, v in spec.contract.launch_fields.items()}
        out["contract_function"] = spec.contract.function
    out["refuse_launch"] = refused_launch  # diagnose.classify asks it first, before any other launch problem
    return out


def launch_warps(launch: dict) -> int:
    w = launch.get("num_warps")
    return int(w) if isinstance(w, int) and not isinstance(w, bool) else TRITON_DEFAULT_WARPS


def refused_launch(ev: dict, rules: dict) -> tuple[str, dict] | None:
    """This call's launch problem on a device with limits, in this order: a launch the device refuses (too many
    programs or warps: `grid`; a block size it cannot run: `xblock`); one it accepts but that came from a heuristic
    broken at this size (that problem's category, e.g. grid = 0); one that is not what the heuristic picked for this
    size (that field's category)."""
    lim = rules.get("device_limits")
    if not lim:
        return None
    numel = ev.get("numel") or _numel(ev.get("size"))
    expected = ev.get("expected_launch") or {}
    for launch in ev.get("launches", []):
        programs, warps, block = launch.get("programs"), launch_warps(launch), launch.get("block")
        base = {**lim, "refused": True, "programs": programs, "num_warps": warps, "block": block, "numel": numel,
                "line": launch.get("line"), "kernel": launch.get("kernel"),
                "config_lines": expected.get("lines") or {}}
        if (programs is not None and programs > lim["max_programs"]) or warps > lim["max_warps"]:
            return "grid", {**base, "too_many": [k for k, bad in (
                ("programs", programs is not None and programs > lim["max_programs"]),
                ("num_warps", warps > lim["max_warps"])) if bad]}
        if block is not None and not (is_pow2(block) and lim["min_block"] <= block <= lim["max_block"]):
            return "xblock", {**base, "bad_block": True}
    if expected.get("problems"):  # launched, but from a heuristic that broke the device's rules at this size
        p = expected["problems"][0]
        return p["category"], {**p, "at_graded_size": True}
    config = expected.get("config")
    if config:
        for key, (launch_key, category) in (rules.get("launch_fields") or {}).items():
            for launch in ev.get("launches", []):
                got = launch_warps(launch) if launch_key == "num_warps" else launch.get(launch_key)
                if got is not None and key in config and got != config[key]:
                    return category, {"mismatch": True, "field": key, "launched": got, "picked": config[key],
                                      "numel": numel, "function": rules.get("contract_function"),
                                      "line": launch.get("line"), "device": lim["device"]}
    return None


def _numel(size) -> int | None:
    if size is None:
        return None
    from grader.core.data import numel_of
    return numel_of(size)


# -- the contract, called as a pure function (child) -------------------------------------------------------------

def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def contract_calls(spec, module, learner_file: str) -> tuple[list[dict], dict | None]:
    """(pseudo-calls for the verdict, summary). Each pseudo-call stands for one failing category, at the smallest
    input that shows it; `probe` names the function, so the size row reads e.g. `1000000000(pick_config) ✗ grid`."""
    c = spec.contract
    if c is None:
        return [], None
    from grader.judge.evaluate import describe_exception

    summary = {"function": c.function, "inputs": len(c.inputs), "smallest": min(c.inputs), "largest": max(c.inputs),
               "failing": {}}
    fn = getattr(module, c.function, None)
    if not callable(fn):
        found = sorted(n for n, v in vars(module).items() if callable(v) and getattr(v, "__module__", None)
                       == module.__name__ and not n.startswith("_"))
        detail = {"contract": c.function, "rule": "missing-function", "signature": c.signature,
                  "found": ", ".join(found) or "none"}
        summary["failing"]["error"] = len(c.inputs)
        return [_pseudo(c, min(c.inputs), "error", detail)], summary
    try:
        with open(learner_file, encoding="utf-8") as f:
            source = f.read()
    except OSError:
        source = ""
    first: dict = {}
    counts: Counter = Counter()
    for n in sorted(c.inputs):
        try:
            result = fn(n)
        except BaseException as e:  # noqa: BLE001 - the learner's exception is evidence, even SystemExit
            counts["error"] += 1
            first.setdefault("error", _pseudo(c, n, "error", {"contract": c.function, "rule": "raised", "input": n,
                                                             "exception": describe_exception(e, learner_file)}))
            continue
        for p in c.check(n, result):
            counts[p["category"]] += 1
            if p["category"] in first:
                continue
            line = field_line(source, c.function, p["field"]) if p.get("field") else None
            first[p["category"]] = _pseudo(c, n, p["category"], {
                **p, "contract": c.function, "input": n, "returned": _short(result), "line": line,
                "signature": c.signature})
    summary["failing"] = dict(counts)
    for ev in first.values():
        ev["detail"]["failing_inputs"] = counts[ev["category"]]
    return list(first.values()), summary


def _pseudo(c, n: int, category: str, detail: dict) -> dict:
    return {"size": n, "numel": n, "seed": 0, "call": 0, "probe": c.function, "contract": c.function,
            "category": category, "detail": detail, "launches": [], "config": None}


def expect_launch(ev: dict, module, spec, learner_file: str | None = None) -> None:
    """ev["expected_launch"]: what the contract's function returns for this call's numel (nothing if it fails:
    the contract's own check reports that), and the lines that set each key."""
    c = spec.contract
    if c is None or not c.launch_fields or ev.get("exception"):
        return
    fn = getattr(module, c.function, None)
    numel = ev.get("numel") or _numel(ev.get("size"))
    if not callable(fn) or numel is None:
        return
    out = {"lines": _lines_of(learner_file, c.function, list(c.launch_fields)) if learner_file else {}}
    try:
        config = fn(numel)
    except BaseException:  # noqa: BLE001 - reported by contract_calls
        return
    problems = c.check(numel, config)
    if problems:  # this call launched what a broken heuristic picked: the heuristic is the cause
        p = problems[0]
        line = out["lines"].get(p.get("field")) if p.get("field") else None
        out["problems"] = [{**p, "contract": c.function, "input": numel, "returned": _short(config), "line": line,
                            "signature": c.signature}]
    else:
        out["config"] = {k: int(v) for k, v in config.items() if k in c.launch_fields}
    ev["expected_launch"] = out


_LINE_CACHE: dict = {}


def _lines_of(learner_file: str, function: str, keys: list[str]) -> dict:
    key = (learner_file, function, tuple(keys))
    if key not in _LINE_CACHE:
        try:
            with open(learner_file, encoding="utf-8") as f:
                source = f.read()
        except OSError:
            source = ""
        _LINE_CACHE[key] = {k: field_line(source, function, k) for k in keys}
    return _LINE_CACHE[key]


# -- where a key of the returned dict is set ------------------------------------------------------------------------

def field_line(source: str, function: str, key: str) -> int | None:
    """The line that decides `key` in the dict `function` returns: the value in a dict literal / dict(...) /
    `cfg[key] = ...`, or, when that value is a plain name, the last assignment to that name before it. Falls back to
    the function's `def` line; None when there is no such function."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    fdef = next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and n.name == function), None)
    if fdef is None:
        return None
    value = None
    for node in ast.walk(fdef):
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and k.value == key:
                    value = v
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
            for kw in node.keywords:
                if kw.arg == key:
                    value = kw.value
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and t.slice.value == key:
                    return node.lineno
    if value is None:
        return fdef.lineno
    if isinstance(value, ast.Name):
        assigned = [n.lineno for n in ast.walk(fdef) if _assigns(n, value.id) and n.lineno <= value.lineno]
        if assigned:
            return max(assigned)
    return value.lineno


def _assigns(node, name: str) -> bool:
    if isinstance(node, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name or
                   isinstance(t, ast.Tuple) and any(isinstance(e, ast.Name) and e.id == name for e in t.elts)
                   for t in node.targets)
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return isinstance(node.target, ast.Name) and node.target.id == name
    return False


# -- CUDA: the capped launch against the same kernel uncapped (shown, never a gate) ------------------------------

def cuda_timing(spec, entry, learner_file: str, say=None) -> dict:
    """Time the learner's entry point (its capped grid) against the very kernel it launched, relaunched with one
    program per tile, and eager PyTorch, at spec.small_size and spec.bench_size. Never raises."""
    from grader.judge.evaluate import describe_exception

    try:
        return {"rows": [_time_one(spec, entry, size, say) for size in (spec.small_size, spec.bench_size)]}
    except Exception as e:  # noqa: BLE001 - a report, not a verdict
        exc = describe_exception(e, learner_file)
        return {"skipped": f"{exc['type']}: {(exc['message'] or '').splitlines()[0][:200] if exc['message'] else ''}",
                "line": exc.get("line")}


ROUNDS = 3


def _time_one(spec, entry, size, say) -> dict:
    import torch
    from triton.runtime.jit import JITFunction

    from grader.core.data import draw, numel_of
    from grader.watch.launches import bound_arguments, block_of
    from grader.speed.timing import bench_ms, median_of_medians, progress_writer

    say = say or progress_writer()
    n = numel_of(size)
    inputs = draw(spec, size, 7, "cuda")
    captured = []
    original = JITFunction.run

    def run(kernel, *args, grid, warmup, **kwargs):
        if not warmup:
            captured.append((kernel, args, dict(kwargs), grid))
        return original(kernel, *args, grid=grid, warmup=warmup, **kwargs)

    JITFunction.run = run
    try:
        out = entry(*inputs, **spec.kwargs)
        torch.cuda.synchronize()
    finally:
        JITFunction.run = original
    if len(captured) != 1:
        return {"n": n, "skipped": catalog.text("check_details.limits_not_one_launch", "en", launches=len(captured))}
    kernel, args, kwargs, grid = captured[0]
    meta = bound_arguments(kernel, args, kwargs)
    block = block_of(meta)
    g = grid(meta) if callable(grid) else grid
    g = tuple(int(v) for v in (g if isinstance(g, (tuple, list)) else (g,)))
    programs = 1
    for v in g:
        programs *= v
    tiles = -(-n // block) if block else None
    if not tiles:
        return {"n": n, "skipped": catalog.text("check_details.limits_no_block", "en")}

    def uncapped():
        kernel[(tiles,)](*args, **kwargs)

    uncapped()
    torch.cuda.synchronize()
    ref = spec.reference(*[t.double() for t in inputs], **spec.kwargs)
    same = bool(torch.allclose(out.double(), ref, rtol=1e-5, atol=1e-6)) if isinstance(out, torch.Tensor) else None
    fns = {"capped": lambda: entry(*inputs, **spec.kwargs), "uncapped": uncapped,
           "eager": lambda: (spec.eager or spec.reference)(*inputs, **spec.kwargs)}
    per: dict = {k: [] for k in fns}
    for r in range(ROUNDS):
        say(catalog.text("progress.capped_round", "en", n=f"{n:,}", r=r + 1, rounds=ROUNDS))
        for k, fn in fns.items():
            per[k].append(bench_ms(fn))
    us = {k: 1e3 * median_of_medians(v) for k, v in per.items()}
    return {"n": n, "block": block, "programs": programs, "tiles": tiles, "num_warps": kwargs.get("num_warps"),
            "capped_us": us["capped"], "uncapped_us": us["uncapped"], "eager_us": us["eager"],
            "slowdown": us["capped"] / us["uncapped"] if us["uncapped"] > 0 else None,
            "medians_us": {k: [1e3 * m for m in v] for k, v in per.items()}, "uncapped_values_ok": same,
            "device_name": torch.cuda.get_device_name()}


# -- the verdict (parent) -------------------------------------------------------------------------------------------

def owns(detail: dict) -> bool:
    """The call's category comes from this module (a refused or mismatched launch, or the contract)."""
    return bool(detail.get("refused") or detail.get("mismatch") or detail.get("contract"))


def annotate(v, calls: list[dict], runs, spec) -> None:
    """The verdict's check row and `device_limits` JSON block (drills with spec.device_limits only)."""
    lim = spec.device_limits
    if lim is None:
        return
    results = [r.result for r in runs if r.result]
    contract = next((r.get("contract") for r in results if r.get("contract")), None)
    timing = next((r.get("limits_timing") for r in results if r.get("limits_timing")), None)
    bad = [c for c in calls if owns(c.get("detail") or {})]
    launches = sum(len(c.get("launches") or []) for c in calls)
    if bad:
        parts = [catalog.part("check_parts.limits_failed", bad=len(bad), size=bad[0]["size"],
                              category=bad[0]["category"])]
    else:
        parts = [catalog.part("check_parts.limits_contract", function=contract["function"], inputs=contract["inputs"],
                              largest=f"{contract['largest']:,}")] if contract else []
        parts.append(catalog.part("check_parts.limits_launches", launches=launches))
    v.checks.append({"name": CHECK_NAME, "passed": not bad, **catalog.detail(*parts)})
    v.device_limits = {"device": lim.name, "max_programs": lim.max_programs, "max_warps": lim.max_warps,
                       "min_block": lim.min_block, "max_block": lim.max_block, "contract": contract,
                       "timing": timing}


# -- the registry's hooks (grader/families/registry.py) ---------------------------------------------------------------

launch_rules = rules
before_classify = expect_launch


def call_line(detail: dict) -> int | None:
    """The line a refused launch or a broken heuristic names (the line that chose it)."""
    return detail["line"] if owns(detail) and detail.get("line") else None


def cuda_info(spec, entry, learner_file: str) -> dict:
    """CUDA, every call passed: the capped-vs-uncapped timing, shown in the report (never a verdict)."""
    return {"limits_timing": cuda_timing(spec, entry, learner_file)} if spec.device_limits is not None else {}

