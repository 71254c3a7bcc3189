"""Training drills: the learner's backward, run through autograd and graded on its gradients.

A spec asks for this family with `grads=GradCheck(...)`. For each graded call, grader/run/child.py

  1. builds a `Backward` before the call (the inputs named in `wrt` get requires_grad; the output gradient dy is
     drawn and placed in guarded memory, so the learner's kernels may read it; float64 autograd gives the true
     gradients),
  2. calls `run(out, watch)` after the forward, inside the same lane checks: torch.autograd.grad(out, wrt, dy) runs
     the learner's backward with the torch watch re-entered inside every autograd node (the engine does not carry a
     TorchFunctionMode into a node's backward), so its allocations are guarded and its torch ops recorded,
  3. calls `judge(ev, ...)` after the forward's evidence: when y was right, the first gradient that is not becomes
     the call's values evidence (`grad_of` names it: x.grad, weight.grad, ...), with its own unwritten elements,
     first bad element and known mistakes; when every value is right, a scratch buffer that two programs of one
     launch stored to without any atomic in that launch is a race (the interpreter runs programs one after another,
     so a racy read-modify-write gives the right sum here and a wrong one on a GPU).

Nothing here names a drill: the spec's GradCheck holds the drill's names, tolerances and mistake models.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

VALUE_KEYS = ("expected_shape", "got_shape", "expected_dtype", "got_dtype", "got_device", "device_ok", "shape_ok",
              "dtype_ok", "layout_ok", "got_strides", "expected_strides", "returned_input", "no_device", "unwritten",
              "wrong", "numel", "tolerance", "first_bad", "max_abs_err", "tiles", "tiles_2d", "unwritten_masked",
              "unwritten_unaddressed", "stores_in_place", "work", "issued_lanes", "duplicates", "mistake",
              "stored_sentinel")

MISTAKE_MAX_NUMEL = 200_000  # as grader/run/child.py: float64 mistake models only at interpreter sizes

# The dtype a gradient must have: its input's (autograd itself refuses another, so a wrong one is a hard error there).
GRAD_TOLERANCE = {
    "float32": (1e-5, 1e-6),
    "float16": (2e-3, 2e-3),   # atol x error_scale: partial sums kept in fp16 (Triton tutorial 05) round once per add
    "bfloat16": (1.6e-2, 1.6e-2),
}


@dataclass(frozen=True)
class GradMistake:
    """A known wrong gradient, as data: when `tensor`'s gradient matches `reference` instead of the true one, the
    diagnosis is `category`. `reference(*inputs_f64, dy=dy_f64, launches=[launch records], **kwargs)` returns the
    wrong gradient (or a list of candidates: any one matching names the mistake), or None where it does not apply."""
    name: str                       # shown in the report: "dx without the mean(dy * w) term"
    category: str
    tensor: str                     # "x.grad", "weight.grad", ...
    reference: Callable


@dataclass(frozen=True)
class GradCheck:
    wrt: tuple                      # the entry's argument names whose gradients are checked, e.g. ("x", "weight")
    # (output_shape, dtype, generator) -> dy; default: normal values (a 0-dim loss gets a random scale, so a
    # backward that ignores its grad_output is seen)
    grad_output: Callable | None = None
    # (name, inputs_f64, dy_f64) -> a tensor like the gradient: atol is relative to it (dW sums M rows)
    error_scale: Callable | None = None
    tolerance: dict = field(default_factory=dict)  # dtype name -> (rtol, atol), else GRAD_TOLERANCE
    mistakes: tuple = ()            # GradMistake(...)s, checked in order when a gradient is wrong
    race_category: str = "race"     # what non-atomic stores of two programs to one scratch element are called
    # gradient name -> what a plain values failure in it means (x.grad -> dx); default: the spec's value_category
    value_categories: dict = field(default_factory=dict)

    def tolerance_for(self, dtype_name: str) -> tuple[float, float]:
        return self.tolerance.get(dtype_name, GRAD_TOLERANCE.get(dtype_name, (1e-5, 1e-6)))


class _GradSpec:
    """What evaluate_output reads from a spec, for one gradient."""
    contiguous_output = False  # a gradient may come back as any layout autograd accepts

    def __init__(self, check: GradCheck):
        self.tolerance_for = check.tolerance_for


def default_grad_output(shape, dtype, gen):
    import torch
    if len(shape) == 0:
        return (torch.rand((), generator=gen, dtype=torch.float64) * 1.5 + 0.25).to(dtype)
    return torch.randn(shape, generator=gen, dtype=torch.float64).to(dtype)


class Backward:
    """One call's backward: made before the watch, run after the forward, judged after the forward's evidence."""

    def __init__(self, check: GradCheck, reference, inputs, guarded, names, memory, seed: int, kwargs: dict):
        import torch

        self.check, self.names = check, list(names)
        self.wrt = [n for n in check.wrt if n in self.names]
        self.leaves = [guarded[self.names.index(n)] for n in self.wrt]
        for t in self.leaves:
            t.requires_grad_()
        as64 = [t.detach().double() if t.is_floating_point() else t.detach() for t in inputs]
        leaves64 = [as64[self.names.index(n)].requires_grad_() for n in self.wrt]
        with torch.enable_grad():
            y64 = reference(*as64, **kwargs)
        gen = torch.Generator().manual_seed(9173 + seed)
        make = check.grad_output or default_grad_output
        dy = make(tuple(y64.shape), inputs[0].dtype, gen)
        self.dy64 = dy.double().to(y64.device)  # dy is drawn on the CPU (one generator everywhere)
        self.refs = torch.autograd.grad(y64, leaves64, self.dy64, allow_unused=True)
        self.inputs64 = [t.detach() for t in as64]
        self.kwargs = kwargs
        self.dy = memory.place(dy, "grad_output dy")
        from grader.watch.torch_watch import mark_data
        mark_data(self.dy)  # torch computing with dy toward the gradients is a fallback, like with the inputs
        self.grads = None
        self.problem = None  # the output could not be differentiated, or the backward returned nothing for one

    # -- 2. the learner's backward -------------------------------------------------------------------------------
    def run(self, out, watch) -> None:
        import torch

        if not isinstance(out, torch.Tensor):
            return  # the forward's evidence says what was returned
        if not out.requires_grad or out.grad_fn is None:
            self.problem = {"autograd": "no-graph"}
            return
        entered = []

        def enter(*_):
            watch.__enter__()
            entered.append(1)

        def leave(*_):
            if entered:
                entered.pop()
                watch.__exit__(None, None, None)

        handles = []
        for node in graph_nodes(out.grad_fn):
            handles.append(node.register_prehook(lambda grads: enter()))
            handles.append(node.register_hook(lambda grads_in, grads_out: leave()))
        try:
            dy = self.dy if tuple(self.dy.shape) == tuple(out.shape) else self.dy.reshape(out.shape)
            self.grads = torch.autograd.grad(out, self.leaves, dy.to(out.dtype), allow_unused=True)
        finally:
            # A node that raised never ran its post-hook; the engine may already have put the mode stack back as it
            # was before backward began (then there is nothing left to close).
            while entered:
                entered.pop()
                depth = torch._C._len_torch_function_stack()
                if depth and torch._C._get_function_stack_at(depth - 1) is watch:
                    watch.__exit__(None, None, None)
            for h in handles:
                h.remove()
        missing = [n for n, g in zip(self.wrt, self.grads) if g is None]
        if missing:
            self.problem = {"autograd": "none-returned", "tensors": missing}

    # -- 3. the gradients' evidence ------------------------------------------------------------------------------
    def judge(self, ev: dict, inputs, memory, launches, interpreted: bool, device: str, evaluate_output,
              store_spans=None, issued=None) -> None:
        """Fold the first wrong gradient into `ev` (only when y itself was right); else look for a race."""
        if forward_failed(ev):
            return
        if self.problem is not None:
            ev["autograd"] = self.problem
            return
        if self.grads is None:
            return
        spec = _GradSpec(self.check)
        for name, got, ref, leaf in zip(self.wrt, self.grads, self.refs, self.leaves):
            scale = self.check.error_scale(f"{name}.grad", self.inputs64, self.dy64) if self.check.error_scale \
                else None
            sub = evaluate_output(got, ref, [t.detach() for t in inputs], self.names, memory, launches, spec,
                                  interpreted, leaf.dtype, device, scale, store_spans, issued)
            if not forward_failed(sub):
                continue
            for k in VALUE_KEYS:
                ev.pop(k, None)
            ev.update(sub)
            ev["grad_of"] = f"{name}.grad"
            if sub.get("wrong") and not sub.get("unwritten") and ref.numel() <= MISTAKE_MAX_NUMEL:
                ev["mistake"] = self.which_mistake(f"{name}.grad", got, ref, launches)
            return
        race = find_race(memory, launches)
        if race:
            ev["race"] = race

    def which_mistake(self, tensor: str, got, ref, launches) -> dict | None:
        from grader.judge.evaluate import matches

        import torch

        got64 = got.detach().to("cpu", torch.float64)
        tolerance = self.check.tolerance_for(str(got.dtype).replace("torch.", ""))
        for m in self.check.mistakes:
            if m.tensor != tensor:
                continue
            try:
                wrong = m.reference(*self.inputs64, dy=self.dy64, launches=launches, **self.kwargs)
            except Exception:  # noqa: BLE001 - a mistake model that does not apply here
                continue
            for candidate in (wrong if isinstance(wrong, (list, tuple)) else [wrong]):
                if candidate is not None and tuple(candidate.shape) == tuple(got64.shape) \
                        and not matches(candidate, ref, tolerance) and matches(got64, candidate, tolerance):
                    return {"name": m.name, "category": m.category, "tensor": tensor}
        return None


def graph_nodes(fn) -> list:
    """Every autograd node reachable from `fn` (the learner's Function node, views, AccumulateGrad)."""
    seen, stack, order = set(), [fn], []
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        order.append(node)
        stack.extend(n for n, _ in node.next_functions)
    return order


def forward_failed(ev: dict) -> bool:
    """The values evidence shows a problem (what classify would fail on)."""
    return bool(ev.get("returned") != "tensor" or not ev.get("shape_ok", True) or not ev.get("dtype_ok", True)
                or not ev.get("device_ok", True) or not ev.get("layout_ok", True) or ev.get("wrong")
                or ev.get("unwritten"))


def find_race(memory, launches: list[dict]) -> dict | None:
    """A scratch buffer the learner allocated whose element two programs of one launch both stored, in a launch
    that issued no atomic at all (no lock, no atomic_add): on a GPU the programs run at once and one partial sum is
    lost. Interpreter evidence (the lane checker records every stored element with its program)."""
    import numpy as np

    atomic_launches = {launch for r in memory.regions for launch, _, _, atomic in r.stored if atomic}
    for r in memory.regions:
        if r.kind != "alloc":
            continue
        by_launch: dict = {}
        for launch, program, elems, atomic in r.stored:
            if not atomic and launch not in atomic_launches and elems.size:
                by_launch.setdefault(launch, {}).setdefault(program, []).append(elems)
        for launch, programs in by_launch.items():
            if len(programs) < 2:
                continue
            per_program = [np.unique(np.concatenate(p)) for p in programs.values()]
            allidx = np.concatenate(per_program)
            counts = np.bincount(allidx)
            shared = np.flatnonzero(counts > 1)
            if shared.size:
                info = launches[launch] if 0 <= launch < len(launches) else {}
                return {"tensor": r.name, "kernel": info.get("kernel"), "line": info.get("line"),
                        "elements": int(shared.size), "first": int(shared[0]), "programs": len(programs),
                        "launch": launch}
    return None


def classify(ev: dict, category: str | None, detail: dict, check: GradCheck | None,
             value_category: str = "wrong-values") -> tuple[str | None, dict]:
    """The call's category after the gradients: no autograd graph or a missing gradient is `autograd`; a race
    found on a call whose values were right is the check's race category. Otherwise classify's own answer, with
    the gradient's name added to its detail."""
    if check is None:
        return category, detail
    if category is None and ev.get("autograd"):
        return "autograd", dict(ev["autograd"])
    if category is None and ev.get("race"):
        return check.race_category, {"race": ev["race"]}
    if category is not None and ev.get("grad_of"):
        if category == value_category and not ev.get("mistake") and ev["grad_of"] in check.value_categories:
            category = check.value_categories[ev["grad_of"]]
        detail = dict(detail or {}, grad_of=ev["grad_of"])
    return category, detail


# -- the speed gate (CUDA): a training drill is timed on forward + backward -------------------------------------------
def timed_steps(check: GradCheck, fns: dict, args, names, kwargs: dict, seed: int = 12345) -> dict:
    """{label: step} for grader.speed.timing: each step clears the gradients of the `wrt` inputs, runs the forward
    and y.backward(dy). Every function gets its own leaves (the same values) and the same dy, drawn like the graded
    calls' (check.grad_output) in the first function's output shape and dtype."""
    import torch

    wrt = [i for i, n in enumerate(names) if n in check.wrt]
    out0 = next(iter(fns.values()))(*args, **kwargs)
    make = check.grad_output or default_grad_output
    dy = make(tuple(out0.shape), out0.dtype, torch.Generator().manual_seed(seed)).to(out0.device)
    del out0
    steps = {}
    for label, fn in fns.items():
        own = [a.detach().clone().requires_grad_() if i in wrt else a for i, a in enumerate(args)]
        leaves = [own[i] for i in wrt]

        def step(fn=fn, own=own, leaves=leaves):
            for t in leaves:
                t.grad = None
            y = fn(*own, **kwargs)
            y.backward(dy)
            return y
        steps[label] = step
    return steps
