"""Compile labs: a drill graded by what torch.compile itself reports (spec.compile_lab, grader.core.spec.CompileLab).

In the child (`grade`, after the learner's module is imported): the entry point's values in eager at every size and
seed; for a custom operator, its registration, the usual Triton checks on the kernel behind it (lanes, memory,
launches), `torch.library.opcheck` and the gradient; `torch._dynamo.explain` (graphs, breaks, Dynamo's reasons);
the function compiled once with `fullgraph=True` and called over `shapes` after `mark_dynamic`, counting compiles
and Dynamo's recompile reasons; on CUDA, whether Inductor's output code launches the learner's kernel. Every break
and recompile keeps Dynamo's own words and the learner's line.

In the parent (`conclude`): the verdict's diagnosis, its check rows and the `compile` evidence. Nothing here names
a drill: causes come from the spec's `blame` patterns over Dynamo's reasons.
"""
from __future__ import annotations

import logging
import re
import time
from dataclasses import replace

from grader.core import catalog

# opcheck's tests -> what a failure of each means, for a triton_op and for any other custom op.
OPCHECK_BLAME = {
    "test_schema": ("registration", "registration"),
    "test_autograd_registration": ("autograd", "autograd"),
    "test_faketensor": ("wrap", "fake"),
    "test_aot_dispatch_dynamic": ("wrap", "fake"),
}

# mark_dynamic on a dim the code then specialises: Dynamo raises this instead of recompiling for every size.
SPECIALIZED = "ConstraintViolationError"

# The order a verdict names problems in when several are seen (the first one is the fix to make first).
ORDER = ("registration", "wrap", "fake", "graph-break", "recompile", "autograd", "compiled-values", "inductor")


# ---------------------------------------------------------------------------------------------- in the child --

LOGGERS = ("torch", "torch._dynamo")


class DynamoLog(logging.Handler):
    """Dynamo's graph-break and recompile log records, as text (as TORCH_LOGS would print them)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.breaks: list[str] = []
        self.recompiles: list[str] = []
        self.seen: set = set()

    def emit(self, record):
        if id(record) in self.seen:  # the same record reaches both loggers when torch propagates after all
            return
        self.seen.add(id(record))
        try:
            msg = record.getMessage()
        except Exception:  # noqa: BLE001 - a record we cannot format is not evidence
            return
        if record.name.endswith("__recompiles") or msg.lstrip().startswith("Recompiling function"):
            self.recompiles.append(msg)
        elif record.name.endswith("__graph_breaks") or "Graph break" in msg:
            self.breaks.append(msg)

    def __enter__(self):
        import torch
        torch._logging.set_logs(graph_breaks=True, recompiles=True)
        for name in LOGGERS:  # torch._logging stops propagation at the loggers it registers (torch._dynamo)
            logging.getLogger(name).addHandler(self)
        return self

    def __exit__(self, *exc):
        import torch
        for name in LOGGERS:
            logging.getLogger(name).removeHandler(self)
        torch._logging.set_logs()


def learner_lineno(text: str, learner_file: str) -> int | None:
    """The learner's line in a Dynamo message: `File "<file>", line N`, or `<file>:N`."""
    m = re.search(r'File "' + re.escape(learner_file) + r'", line (\d+)', text)
    if m:
        return int(m.group(1))
    m = re.search(re.escape(learner_file) + r":(\d+)", text)
    return int(m.group(1)) if m else None


def blame(text: str, patterns) -> str | None:
    for pattern, category in patterns:
        if re.search(pattern, text):
            return category
    return None


def first_line(text: str) -> str:
    return next((ln.strip() for ln in str(text).splitlines() if ln.strip()), "")[:300]


def reason_lines(text: str) -> tuple[str, str]:
    """(reason, explanation) from Dynamo's graph-break text: the first line that says what failed (not the generic
    "Encountered graph break when attempting to trace ..."), and its `Explanation:` line when there is one."""
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    reason = next((ln for ln in lines if not ln.startswith(("Encountered graph break", "Graph break", "User code",
                                                             "Graph Break Reason"))), lines[0] if lines else "")
    explanation = next((ln[len("Explanation:"):].strip() for ln in lines if ln.startswith("Explanation:")), "")
    return reason[:300], explanation[:400]


def parse_break(msg: str, learner_file: str) -> dict | None:
    m = re.search(r"Graph Break Reason:\s*(.+?)(?:\n\s*User code traceback|\Z)", msg, re.S)
    if not m:
        return None
    reason, explanation = reason_lines(m.group(1))
    return {"reason": reason, "explanation": explanation, "line": learner_lineno(msg, learner_file)}


def parse_recompile(msg: str, learner_file: str, patterns=()) -> dict:
    """`Recompiling function f in F:L / triggered by the following guard failure(s): - 0/0: GUARD  # code  # F:N`.
    Of several failed guards, the first that `patterns` blame (a size mismatch often comes first, the cause later)."""
    guards = [ln.strip()[2:].strip() for ln in msg.splitlines() if re.match(r"\s*- \d+/\d+:", ln)]
    guard = next((g for g in guards if blame(g, patterns)), guards[0] if guards else "")
    raw = guard
    code = ""
    if "#" in guard:
        guard, _, rest = guard.partition("#")
        code = rest.split("#")[0].strip()
        guard = guard.strip()
    guard = re.sub(r"^\d+/\d+:\s*", "", guard)
    line = None
    # The guard's comment names the source as a path cut at the front: "... # mp/x/file.py:33 in step".
    for path, n in re.findall(r"(\S+):(\d+) in \w+", raw):
        if learner_file.endswith(path.lstrip(".")):
            line = int(n)
            break
    m = re.search(r'File "' + re.escape(learner_file) + r'", line (\d+)', msg)
    if line is None and m:
        line = int(m.group(1))
    return {"reason": guard[:300] or first_line(msg), "code": code[:200], "line": line}


def exception_line(exc: BaseException, learner_file: str) -> int | None:
    from grader.judge.evaluate import learner_line_of
    return learner_lineno(str(exc), learner_file) or learner_line_of(exc, learner_file)


def values_row(spec, learner_file, size, seed, stage: str, fn, inputs) -> tuple[dict, object]:
    """One call of `fn` (the eager entry point, or the compiled one) against the float64 reference."""
    import torch

    from grader.judge.evaluate import count_wrong, describe_exception

    ev = {"size": size if isinstance(size, int) else list(size), "seed": seed, "call": 0, "stage": stage,
          "launches": [], "category": None, "detail": {}}
    try:
        out = fn(*inputs)
    except BaseException as e:  # noqa: BLE001 - the learner's exception is evidence
        ev["exception"] = describe_exception(e, learner_file)
        ev["category"], ev["detail"] = "error", {"exception": ev["exception"], "stage": stage}
        return ev, None
    if not isinstance(out, torch.Tensor):
        ev["returned"] = type(out).__name__
        ev["category"], ev["detail"] = "error", {"returned": ev["returned"]}
        return ev, None
    ev["returned"] = "tensor"
    ref = spec.reference(*[t.double() for t in inputs], **spec.kwargs)
    if tuple(out.shape) != tuple(ref.shape) or out.dtype != inputs[0].dtype:
        ev["shape_ok"] = tuple(out.shape) == tuple(ref.shape)
        ev["dtype_ok"] = out.dtype == inputs[0].dtype
        cat = "shape" if not ev["shape_ok"] else "dtype"
        ev["category"], ev["detail"] = cat, {"expected": list(ref.shape) if cat == "shape" else
                                             str(inputs[0].dtype).replace("torch.", ""),
                                             "got": list(out.shape) if cat == "shape" else
                                             str(out.dtype).replace("torch.", "")}
        return ev, out
    wrong, numel = count_wrong(spec, inputs, out.detach())
    ev["numel"], ev["wrong"] = numel, wrong
    if wrong:
        ev["category"], ev["detail"] = "wrong-values", {"wrong": wrong, "numel": numel, "stage": stage}
    return ev, out


def gradient_problem(lab, spec, fn, inputs, learner_file) -> dict | None:
    """Backward through `fn`: each input's gradient against the float64 reference's; a known wrong formula named."""
    import torch

    from grader.judge.evaluate import describe_exception, matches

    leaves = [t.detach().clone().requires_grad_(True) for t in inputs]
    gen = torch.Generator().manual_seed(11)
    try:
        out = fn(*leaves)
        grad_out = torch.randn(out.shape, generator=gen, dtype=out.dtype).to(out.device)
        got = torch.autograd.grad(out, leaves, grad_out, allow_unused=True)
    except BaseException as e:  # noqa: BLE001
        exc = describe_exception(e, learner_file)
        return {"exception": exc, "line": exc.get("line")}
    ref_in = [t.detach().double().requires_grad_(True) for t in inputs]
    ref_out = spec.reference(*ref_in, **spec.kwargs)
    want = torch.autograd.grad(ref_out, ref_in, grad_out.double(), allow_unused=True)
    tolerance = spec.tolerance_for(str(inputs[0].dtype).replace("torch.", ""))
    for i, (g, w) in enumerate(zip(got, want)):
        w = torch.zeros_like(ref_in[i]) if w is None else w
        if g is None or tuple(g.shape) != tuple(w.shape) or not matches(g.detach(), w, tolerance, share=1.0):
            wrong = None if g is None or tuple(g.shape) != tuple(w.shape) else \
                int((~torch.isclose(g.detach().double(), w, rtol=2 * tolerance[0], atol=2 * tolerance[1])).sum())
            problem = {"input": i, "wrong": wrong, "numel": int(w.numel()), "missing": g is None}
            for m in lab.grad_mistakes:
                try:
                    models = m.reference(*[t.detach().double() for t in inputs], grad_out.double())
                except Exception:  # noqa: BLE001 - a mistake model that does not apply
                    continue
                if g is not None and matches(g.detach(), models[i], tolerance) and not matches(models[i], w, tolerance):
                    problem["mistake"] = m.name
                    break
            return problem
    return None


def on(device: str, inputs) -> tuple:
    return tuple(t.to(device) for t in inputs)


def find_op(name: str, module):
    """The registered operator `ns::name` (an OpOverloadPacket) and the learner's CustomOpDef behind it, if any."""
    import torch

    ns, _, op = name.partition("::")
    try:
        packet = getattr(getattr(torch.ops, ns), op)
    except (AttributeError, RuntimeError):
        packet = None
    opdef = None
    try:
        from torch._library.custom_ops import OPDEFS
        opdef = OPDEFS.get(name)
    except ImportError:
        pass
    if opdef is None:
        opdef = next((v for v in vars(module).values() if getattr(v, "_qualname", None) == name), None)
    return packet, opdef


def is_triton_op(name: str) -> bool:
    try:
        from torch._library.triton import triton_ops_to_kernels
        return name in triton_ops_to_kernels
    except ImportError:
        return False


def run_opcheck(packet, inputs, grad: bool) -> dict:
    import torch

    args = tuple(t.detach().clone().requires_grad_(grad and t.is_floating_point()) for t in inputs)
    try:
        results = torch.library.opcheck(packet.default, args, raise_exception=False)
    except BaseException as e:  # noqa: BLE001 - opcheck itself could not run the op
        return {"error": f"{type(e).__name__}: {first_line(e)}"}
    return {test: ("SUCCESS" if r == "SUCCESS" else first_line(r) or type(r).__name__) for test, r in results.items()}


def inductor_code(entry, inputs, kernels) -> dict:
    """CUDA: compile with Inductor, read its output code and find the learner's kernels in it."""
    import torch
    from torch._inductor.utils import run_and_get_code

    torch._dynamo.reset()
    try:
        _, codes = run_and_get_code(torch.compile(entry, backend="inductor", fullgraph=True), *inputs)
    except BaseException as e:  # noqa: BLE001
        return {"error": f"{type(e).__name__}: {first_line(e)}"}
    text = "\n".join(codes)
    # Inductor names a user kernel after it, with a suffix: `add_relu_kernel_0.run(...)` (torch 2.11, H200)
    found = [k for k in kernels if re.search(r"\b" + re.escape(k) + r"(_\d+)?\b", text)]
    lines = [ln for ln in text.splitlines() if any(k in ln for k in kernels) or "def call(" in ln
             or re.search(r"\btriton_\w+\.run\(|\.run\(", ln)]
    return {"kernels": kernels, "found": found, "excerpt": lines[:12]}


def op_calls(op_spec, impl, device, learner_file, lanes, recorder, runner_cls) -> list[dict]:
    """The usual Triton-checked calls (grader.run.child.CallRunner: lanes, memory, launches, values) of a custom
    operator's implementation, classified like any drill's calls."""
    from grader.judge.diagnose import classify

    if lanes is not None:  # what the interpreter runs, the compiler must accept
        from grader.watch.compile_check import FrontEnd
        recorder.frontend = FrontEnd(learner_file)
    runner = runner_cls(op_spec, impl, device, learner_file, lanes, recorder)
    rules = {"value_category": op_spec.value_category, "index_category": op_spec.oob_category,
             "input_categories": op_spec.input_categories}
    rows = []
    for size in op_spec.sizes:
        for ev in runner.pair(size, 0, None, None):
            ev["category"], ev["detail"] = classify(ev, op_spec.max_launches, rules)
            rows.append(ev)
    return rows


def distinct(recompiles: list[dict]) -> list[dict]:
    """One recompile per guard (numbers aside: `len(G['HISTORY']) == 3` and `== 4` are one cause), blamed first."""
    seen, out = set(), []
    for r in sorted(recompiles, key=lambda r: r.get("category") is None):
        key = (re.sub(r"\d+", "N", r["reason"]), r.get("code"))
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def compile_over(spec, entry, backend, fullgraph, shapes_inputs, learner_file, strict=True) -> dict:
    """One torch.compile of the entry point called over the shape sequence (inputs marked dynamic first): the
    fullgraph result, values rows, compiles, recompiles, graph-break log messages and the compiled function."""
    import torch
    import torch._dynamo as dynamo
    from torch._dynamo.utils import counters

    lab = spec.compile_lab
    full, rows = {"ok": True}, []
    # strict: torch._dynamo.mark_dynamic, as the lab names it (code that specializes the dim is an error); else
    # maybe_mark_dynamic, so that a file with breaks still runs and shows every break and recompile.
    mark = dynamo.mark_dynamic if strict else getattr(dynamo, "maybe_mark_dynamic", dynamo.mark_dynamic)
    # No compile caches shared with other processes: two grades of one file compiling at once with a cold cache
    # came back with different recompiles (one without the `branch` guard; 1 of 4 pairs here, 0 of 6 with the
    # caches off), and what Dynamo saw must not depend on a neighbour.
    from torch._functorch import config as functorch_config
    from torch._inductor import config as inductor_config
    with DynamoLog() as log, inductor_config.patch(fx_graph_cache=False), \
            functorch_config.patch(enable_autograd_cache=False):
        dynamo.reset()
        counters.clear()
        compiled = torch.compile(entry, backend=backend, fullgraph=fullgraph)
        for size, inputs in shapes_inputs:
            inputs = tuple(t.clone() for t in inputs)
            for index, dims in lab.dynamic.items():
                for d in dims:
                    mark(inputs[index], d)
            ev, _ = values_row(spec, learner_file, size, 0, "compiled", compiled, inputs)
            exc = ev.get("exception")
            if exc:
                full = {"ok": False, "type": exc["type"], "reason": first_line(exc["message"]),
                        "message": exc["message"][:1200], "line": learner_lineno(exc["message"], learner_file)
                        or exc.get("line"), "size": ev.get("size")}
                if fullgraph:
                    break
            rows.append(ev)
        compiles = int(counters["stats"].get("unique_graphs", 0))
        recompiles = [parse_recompile(m, learner_file, lab.blame) for m in log.recompiles]
    for r in recompiles:
        r["category"] = blame(r["reason"] + " " + r.get("code", ""), lab.blame)
    return {"full": full, "rows": rows, "compiles": compiles, "recompiles": recompiles, "logged": log.breaks,
            "compiled": compiled}


def grade(spec, module, entry, device: str, learner_file: str, lanes, recorder, runner_cls) -> dict:
    """The compile lab's evidence: `calls` (rows like any drill's: the operator's Triton-checked calls, the entry
    point's eager values) and `compile` (what Dynamo, opcheck and Inductor reported)."""
    import torch
    import torch._dynamo as dynamo

    lab = spec.compile_lab
    interpreted = lanes is not None
    where = lab.inputs_device or device  # the entry point's tensors
    started = time.perf_counter()
    out: dict = {"backend": lab.backend, "interpreted": interpreted}
    if interpreted and lab.op:
        from grader.families.compiled_interp import install
        out["shim_missing"] = install(module)
    elif lab.op:
        from grader.families.compiled_interp import guard_compiled
        out["shim_missing"] = guard_compiled()
    calls: list[dict] = []

    # 1. The operator: registered? its kernel under the usual checks.
    kernels: list[str] = []
    if lab.op:
        packet, opdef = find_op(lab.op, module)
        out["op"] = {"name": lab.op, "registered": packet is not None and opdef is not None,
                     "triton_op": is_triton_op(lab.op)}
        if packet is not None and opdef is not None:
            impl = getattr(opdef, "_init_fn", None) or packet.default
            op_spec = replace(spec, entry=lab.op, reference=lab.op_reference, compile_lab=None,
                              make_inputs=lambda size, gen, _m=spec.make_inputs: _m(size, gen)[:lab.op_inputs])
            rows = op_calls(op_spec, impl, device, learner_file, lanes, recorder, runner_cls)
            for r in rows:
                r["stage"] = "op"
            calls += rows
            kernels = sorted({l["kernel"] for r in rows for l in r.get("launches", []) if l.get("kernel")})
    out["kernels"] = kernels

    # 2. The entry point in eager, every size and seed.
    first_inputs = None
    for size in spec.sizes:
        for seed in range(spec.seeds):
            gen = torch.Generator().manual_seed(seed * 2)
            inputs = on(where, spec.make_inputs(size, gen))
            first_inputs = first_inputs or inputs
            ev, _ = values_row(spec, learner_file, size, seed, "eager", entry, inputs)
            calls.append(ev)
    if lab.grad:  # at the first compiled shape: large enough to show a wrong formula in many elements
        grad_inputs = on(where, spec.make_inputs((list(lab.shapes) or list(spec.sizes))[0],
                                                  torch.Generator().manual_seed(5)))
        out["grad_eager"] = gradient_problem(lab, spec, entry, grad_inputs, learner_file)
    if lab.op and out["op"]["registered"]:
        t0 = time.perf_counter()
        # Inputs without requires_grad: the gradient is checked on its own (eager and compiled, against the float64
        # reference); opcheck's aot_dispatch test with grad inputs costs ~3 s more on a 2-core CPU.
        out["opcheck"] = run_opcheck(packet, first_inputs[:lab.op_inputs], False)
        out["opcheck_s"] = round(time.perf_counter() - t0, 2)

    if lab.op and not out["op"]["registered"]:  # nothing to compile as an operator: say that first
        out["seconds"] = round(time.perf_counter() - started, 2)
        return {"calls": calls, "compile": out}

    # 3. One compiled function over the shape sequence: fullgraph, compiles and recompiles, values, gradients.
    shapes = list(lab.shapes) or list(spec.sizes)
    gen = torch.Generator().manual_seed(5)
    probe_inputs = on(where, spec.make_inputs(shapes[0], gen))
    breaks: list[dict] = []
    shapes_inputs = []
    for i, size in enumerate(shapes):
        inputs = on(where, spec.make_inputs(size, torch.Generator().manual_seed(100 + i)))
        shapes_inputs.append((size, inputs))
    done = compile_over(spec, entry, lab.backend, True, shapes_inputs, learner_file)
    full, rows, compiles, recompiles = done["full"], done["rows"], done["compiles"], done["recompiles"]
    # What Dynamo sees in a default compile (torch._dynamo.explain): graphs, breaks, reasons. Always run: on torch 2.13
    # fullgraph=True captures torch.nonzero as an unbacked size where the default compile breaks the graph there.
    out["graphs"], out["graph_breaks"] = None, None
    with DynamoLog() as log:
        dynamo.reset()
        try:
            explained = dynamo.explain(entry)(*probe_inputs)
            out["graphs"] = explained.graph_count
            out["graph_breaks"] = explained.graph_break_count
            for r in explained.break_reasons:
                stack = [f for f in (getattr(r, "user_stack", None) or []) if f.filename == learner_file]
                reason, explanation = reason_lines(r.reason)
                breaks.append({"reason": reason, "explanation": explanation,
                               "line": stack[-1].lineno if stack else None})
        except BaseException as e:  # noqa: BLE001 - explain itself failed on the learner's code
            out["explain_error"] = {"type": type(e).__name__, "message": first_line(e),
                                    "line": exception_line(e, learner_file)}
        for msg in log.breaks:
            b = parse_break(msg, learner_file)
            if b and not any(x["line"] == b["line"] and x["line"] is not None for x in breaks):
                breaks.append(b)
    for b in breaks:
        b["category"] = blame(b["reason"] + " " + b.get("explanation", ""), lab.blame)
    out["breaks"] = sorted(breaks, key=lambda b: (b["line"] is None, b["line"] or 0))
    if not full["ok"]:
        # fullgraph stopped at the first break: compile again allowing breaks (backend "eager": no AOT work), so
        # every break is logged with its line, and the recompiles behind the breaks are counted too.
        # Three shapes: the second call often fails on the size alone (then it becomes dynamic), the third shows the
        # guards behind it (a growing list, a branch on the size).
        again = compile_over(spec, entry, "eager", False, shapes_inputs[:3], learner_file, strict=False)
        compiles, recompiles = again["compiles"], again["recompiles"]
        if full.get("line") and full.get("type") != SPECIALIZED and not any(x["line"] == full["line"] for x in breaks):
            reason, explanation = reason_lines(full.get("message", ""))
            breaks.append({"reason": reason, "explanation": explanation, "line": full["line"],
                           "category": blame(full.get("message", ""), lab.blame)})
        for msg in again["logged"]:
            b = parse_break(msg, learner_file)
            if b and not any(x["line"] == b["line"] for x in breaks if x["line"] is not None):
                b["category"] = blame(msg, lab.blame)
                breaks.append(b)
        out["breaks"] = sorted(breaks, key=lambda b: (b["line"] is None, b["line"] or 0))
    out["fullgraph"] = full
    out["compiles"] = compiles
    out["recompile_count"] = len(recompiles)  # every "Recompiling function" Dynamo logged
    out["recompiles"] = distinct(recompiles)  # one per guard, blamed first
    out["shapes"] = [s if isinstance(s, int) else list(s) for s in shapes]
    out["compiled_wrong"] = [{"size": r["size"], "wrong": r.get("wrong"), "numel": r.get("numel"),
                              "category": r["category"]} for r in rows if r["category"]]
    if full["ok"] and full.get("type") is None and lab.grad:
        out["grad_compiled"] = gradient_problem(lab, spec, done["compiled"], probe_inputs, learner_file)
    if device == "cuda" and lab.inductor_kernel and full["ok"] and kernels:
        out["inductor"] = inductor_code(entry, probe_inputs, kernels)
    out["seconds"] = round(time.perf_counter() - started, 2)
    return {"calls": calls, "compile": out}


# --------------------------------------------------------------------------------------------- in the parent --

def problems(c: dict, lab) -> list[dict]:
    """Every problem in one child's compile evidence, as {category, line, reason, ...}, in the order to fix them."""
    found = []
    op = c.get("op")
    if op is not None and not op.get("registered"):
        found.append({"category": "registration", "op": op["name"], "line": None})
    for test, result in (c.get("opcheck") or {}).items():
        if result == "SUCCESS":
            continue
        blamed = OPCHECK_BLAME.get(test, ("registration", "registration"))
        category = blamed[0] if (op or {}).get("triton_op") else blamed[1]
        if re.search(r"autograd|backward", result, re.I):  # the op runs, but has no (or a broken) backward
            category = "autograd"
        found.append({"category": category, "test": test, "reason": result, "line": None})
    for b in c.get("breaks", []):
        found.append({"category": "graph-break", "hole": b.get("category"), "reason": b["reason"],
                      "line": b.get("line")})
    full = c.get("fullgraph") or {}
    if full.get("type") == SPECIALIZED:  # a dim marked dynamic that the code turned into a constant
        said = next((ln.strip(" -") for ln in (full.get("message") or "").splitlines() if "You marked" in ln),
                    full.get("reason"))
        found.append({"category": "recompile", "hole": blame(full.get("message", ""), lab.blame if lab else ()),
                      "reason": said, "code": "", "line": full.get("line"), "specialized": True})
    elif not full.get("ok", True) and not c.get("breaks"):
        found.append({"category": "graph-break", "hole": blame(full.get("reason", "") + full.get("message", ""),
                                                               lab.blame if lab else ()),
                      "reason": full.get("reason"), "line": full.get("line"), "fullgraph": True})
    recompiles = c.get("recompiles", [])
    extra = max(0, c.get("recompile_count", len(recompiles)) - (lab.max_recompiles if lab else 0))
    blamed = [r for r in recompiles if r.get("category")]  # the rest follow from them (a size a break fixed)
    for r in (blamed or recompiles)[:extra] if extra else []:
        found.append({"category": "recompile", "hole": r.get("category"), "reason": r["reason"],
                      "code": r.get("code"), "line": r.get("line")})
    for key in ("grad_eager", "grad_compiled"):
        g = c.get(key)
        if g:
            found.append({"category": "autograd", "stage": key.split("_")[1], **g,
                          "line": g.get("line")})
            break
    for r in c.get("compiled_wrong", []):
        found.append({"category": "compiled-values", **r, "line": None})
        break
    ind = c.get("inductor")
    if ind and (ind.get("error") or not ind.get("found")):
        found.append({"category": "inductor", **ind, "line": None})
    found.sort(key=lambda p: ORDER.index(p["category"]) if p["category"] in ORDER else len(ORDER))
    return found


VALUE_ROWS = ("runs without error", "output dtype and shape", "values match the float64 reference")

CHECK_ROWS = (
    ("operator registered", ("registration",)),
    ("opcheck passes", ("wrap", "fake")),
    ("no graph break (fullgraph=True)", ("graph-break",)),
    ("no recompile over the shapes", ("recompile",)),
    ("gradient matches", ("autograd",)),
    ("compiled values match", ("compiled-values",)),
    ("Inductor launches your kernel (CUDA)", ("inductor",)),
)


def conclude(v, runs, spec) -> None:
    """The compile lab's part of a merged verdict: check rows, `compile` evidence, and the diagnosis when every
    ordinary call passed (a values failure or a kernel's out-of-bounds lane is named first)."""
    lab = spec.compile_lab
    if lab is None:
        return
    results = [(r.device, r.result.get("compile")) for r in runs if r.result and r.result.get("compile")]
    if not results:
        return
    # The CUDA run compiles real kernels; the interpreter run beside it checks lanes. Its compile evidence decides.
    device, c = next(((d, c) for d, c in results if d == "cuda"), results[0])
    found = problems(c, lab)
    if not lab.op:  # no Triton kernel in this lab: the rows about kernels and lanes say nothing
        v.checks = [row for row in v.checks if row["name"] in VALUE_ROWS]
    v.info["compile"] = {**c, "device": device, "problems": found}
    for name, cats in CHECK_ROWS:
        if name.endswith("(CUDA)") and "inductor" not in c:
            continue
        if name == "operator registered" and "op" not in c:
            continue
        if name == "opcheck passes" and "opcheck" not in c:
            continue
        if name == "gradient matches" and not lab.grad:
            continue
        bad = [p for p in found if p["category"] in cats]
        v.checks.append({"name": name, "passed": not bad, **catalog.detail(*check_detail(name, bad, c))})
    if v.passed and found:
        first = found[0]
        v.passed = False
        v.diagnosis = first["category"]
        v.detail = {"compile": True, **first, "all": found}
        v.line = first.get("line") or source_line(v.source_lines, first["category"], lab)
        hole = first.get("hole") or (first["category"] if first["category"] in spec.holes else None)
        if hole in spec.holes:
            v.hole = hole


def source_line(lines: list[str], category: str, lab) -> int | None:
    """The learner's line for a problem Dynamo gives no line for (an operator's registration, its backward): the
    first line matching the spec's pattern for that category."""
    for cat, pattern in lab.source_lines:
        if cat == category:
            for i, ln in enumerate(lines):
                if not ln.lstrip().startswith("#") and re.search(pattern, ln):
                    return i + 1
    return None


def check_detail(name: str, bad: list, c: dict) -> list:
    """The row's detail as catalog pieces (catalog.part); a reason Dynamo or opcheck gave stays as it said it."""
    if name.startswith("no graph break"):
        if bad and not c.get("breaks"):
            return [catalog.part("check_parts.fullgraph_failed", reason=bad[0].get("reason"))]
        return [catalog.part("check_parts.graphs", graphs=c.get("graphs", "?"), breaks=len(c.get("breaks", [])))]
    if name.startswith("no recompile"):
        return [catalog.part("check_parts.compiles", compiles=c.get("compiles", "?"), shapes=c.get("shapes"))]
    if name == "opcheck passes":
        parts = []
        for t, r in (c.get("opcheck") or {}).items():
            parts += [catalog.part("check_parts.list_sep")] * bool(parts) + [
                catalog.part("check_parts.opcheck_ok" if r == "SUCCESS" else "check_parts.opcheck_failed", test=t)]
        return parts or [catalog.part("check_parts.as_said", text="-")]
    if name.startswith("Inductor"):
        ind = c.get("inductor") or {}
        found = ", ".join(ind.get("found") or [])
        kernels = ", ".join(ind.get("kernels") or [])
        return [catalog.part("check_parts.inductor_found", found=found, kernels=kernels) if found else
                catalog.part("check_parts.inductor_none", kernels=kernels)]
    if bad:
        return [catalog.part("check_parts.as_said",
                             text=first_line(bad[0].get("reason") or bad[0].get("mistake") or bad[0]["category"]))]
    return [catalog.part("check_parts.ok")]


# -- the registry's hooks (grader/families/registry.py) ---------------------------------------------------------------

RULE_ORDER = 40


def applies(spec) -> bool:
    return spec.compile_lab is not None


child_grade = grade  # replaces the child's call loop

