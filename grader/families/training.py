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

from grader.core.data import default_grad_output
from grader.core.spec import GRAD_TOLERANCE, GradCheck, GradMistake  # noqa: F401 - the family's spec data

VALUE_KEYS = ("expected_shape", "got_shape", "expected_dtype", "got_dtype", "got_device", "device_ok", "shape_ok",
              "dtype_ok", "layout_ok", "got_strides", "expected_strides", "returned_input", "no_device", "unwritten",
              "wrong", "numel", "tolerance", "first_bad", "max_abs_err", "tiles", "tiles_2d", "unwritten_masked",
              "unwritten_unaddressed", "stores_in_place", "work", "issued_lanes", "duplicates", "mistake",
              "stored_sentinel", "row_map", "error_ratio", "ref_scale")

ALLOCATOR_ROUND = 512  # PyTorch's CUDA caching allocator rounds every block up to a multiple of 512 bytes
MISTAKE_MAX_NUMEL = 200_000  # as grader/run/child.py: float64 mistake models only at interpreter sizes

class _GradSpec:
    """What evaluate_output reads from a spec, for one gradient."""
    contiguous_output = False  # a gradient may come back as any layout autograd accepts

    def __init__(self, check: GradCheck):
        self.tolerance_for = check.tolerance_for


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
        self.alloc_limit = check.max_alloc(inputs) if check.max_alloc is not None else None
        self.cuda_before = None
        self.peak = None
        # regions older than this call (carried from earlier calls: a cache is judged on the call that made it)
        self.before = {id(r) for r in memory.regions}
        if self.alloc_limit is not None and self.dy.device.type == "cuda":
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            self.cuda_before = torch.cuda.memory_allocated()

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
        if self.cuda_before is not None:  # the learner's forward + backward only: drill's own checks come later
            torch.cuda.synchronize()
            self.peak = torch.cuda.max_memory_allocated() - self.cuda_before
        missing = [n for n, g in zip(self.wrt, self.grads) if g is None]
        if missing:
            self.problem = {"autograd": "none-returned", "tensors": missing}

    # -- 3. the gradients' evidence ------------------------------------------------------------------------------
    def judge(self, ev: dict, inputs, memory, launches, interpreted: bool, device: str, evaluate_output,
              store_spans=None, issued=None) -> None:
        """Fold the first wrong gradient into `ev` (only when y itself was right); else look for a race, then for
        an allocation the check's memory rule forbids. An input overwritten with its own gradient (in_place) first
        stops counting as mutated."""
        if self.grads is not None and self.problem is None:
            self.allow_in_place(ev, memory)
        if forward_failed(ev):
            return
        if self.problem is not None:
            ev["autograd"] = self.problem
            return
        if self.grads is None:
            return
        peak = self.peak
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
            if name in ev.get("grad_in_place", ()):  # its own storage, allowed: not an output that went elsewhere
                ev.pop("returned_input", None)
            if sub.get("wrong") and not sub.get("unwritten") and ref.numel() <= MISTAKE_MAX_NUMEL:
                ev["mistake"] = self.which_mistake(f"{name}.grad", got, ref, launches)
            return
        race = find_race(memory, launches)
        if race:
            ev["race"] = race
            return
        big = self.big_allocation(memory, peak)
        if big:
            ev["memory"] = big

    def allow_in_place(self, ev: dict, memory) -> None:
        """An input of `in_place` whose gradient is its own storage was overwritten with that gradient: allowed."""
        mutated = ev.get("inputs_mutated")
        if not mutated or not self.check.in_place:
            return
        own = {n for n, g, leaf in zip(self.wrt, self.grads, self.leaves) if n in self.check.in_place
               and g is not None and g.numel() and memory.region_of(g) is not None
               and memory.region_of(g) is memory.region_of(leaf)}
        kept = [m for m in mutated if m["name"] not in own]
        if len(kept) != len(mutated):
            ev["inputs_mutated"] = kept
            ev["grad_in_place"] = sorted(own)

    def big_allocation(self, memory, peak) -> dict | None:
        """An allocation of this call of more than `max_alloc` elements that is no gradient's storage (CPU and
        CUDA: the watch serves every torch factory call), or on CUDA a peak over forward + backward above the inputs' gradients
        plus that limit's bytes (drill's guard bands around the call's allocations not counted)."""
        limit = self.alloc_limit
        if limit is None:
            return None
        grads = {id(memory.region_of(g)) for g in self.grads if g is not None and g.numel()}
        for r in memory.regions:
            numel = (r.end - r.start) // r.elsize
            if r.kind == "alloc" and numel > limit and id(r) not in grads and id(r) not in self.before:
                return {"tensor": r.name, "shape": list(r.tensor.shape), "dtype": str(r.tensor.dtype).replace(
                    "torch.", ""), "numel": int(numel), "limit": int(limit), "bytes": int(r.end - r.start)}
        if peak is not None:
            grad_bytes = sum(g.numel() * g.element_size() for g in self.grads if g is not None
                             and memory.region_of(g) is not None and memory.region_of(g).kind != "input")
            leaf = self.leaves[0]
            # drill serves every allocation inside its own guard bands: those bytes are drill's, not the learner's
            bands = sum(r.buffer.numel() * r.buffer.element_size() - (r.end - r.start) for r in memory.regions
                        if r.buffer is not None and id(r) not in self.before)
            # and for a moment it holds the learner's own allocation beside the guarded copy it hands back
            # (torch_watch._alloc): the largest such original, as the caching allocator rounds it, is drill's too
            # (found on the H200: an empty_like gradient went 45 KB over at (7, 3001) bf16)
            transient = max((-(-(r.end - r.start) // ALLOCATOR_ROUND) * ALLOCATOR_ROUND for r in memory.regions
                             if r.kind == "alloc" and r.buffer is not None and id(r) not in self.before), default=0)
            allowed = grad_bytes + limit * leaf.element_size() + bands + transient
            if peak > allowed:
                return {"peak_bytes": int(peak), "allowed_bytes": int(allowed), "limit": int(limit)}
        return None

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
                    return {"name": m.name, "name_zh": m.name_zh, "category": m.category, "tensor": tensor}
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

    from grader.core.arrays import unique

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
            per_program = [unique(np.concatenate(p)) for p in programs.values()]
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
    if category is None and ev.get("memory"):
        return check.memory_category, {"memory": ev["memory"]}
    if category is not None and ev.get("grad_of"):
        if category == value_category and not ev.get("mistake") and ev["grad_of"] in check.value_categories:
            category = check.value_categories[ev["grad_of"]]
        detail = dict(detail or {}, grad_of=ev["grad_of"])
    return category, detail


# -- the registry's hooks (grader/families/registry.py) ---------------------------------------------------------------

RULE_ORDER = 30
CHECK_ROW = ("backward through autograd, partial sums without a race", ("autograd", "race"))


def applies(spec) -> bool:
    return getattr(spec, "grads", None) is not None


def call_extension(spec, inputs, guarded, names, memory, seed: int, kwargs: dict) -> Backward:
    """Before the call: dy and the float64 gradients; the child runs and judges it (module docstring)."""
    return Backward(spec.grads, spec.reference, inputs, guarded, names, memory, seed, kwargs)


def after_classify(ev: dict, spec) -> tuple[str | None, dict]:
    return classify(ev, ev["category"], ev["detail"], spec.grads, spec.value_category)


MEMORY_ROW = ("no buffer beyond the gradient over the drill's memory limit", ("memory",))


def check_rows(spec) -> list[tuple]:
    return [CHECK_ROW] + ([MEMORY_ROW] if getattr(spec.grads, "max_alloc", None) else [])


# -- the speed gate (CUDA): a training drill is timed on forward + backward -------------------------------------------
def step_maker(spec, first, args, names, kwargs: dict, seed: int = 12345):
    """fn -> step for timing a training drill: each step clears the gradients of its own `wrt` leaves (copies of
    `args`, the same values), runs fn's forward and y.backward(dy). One dy for every step, drawn like the graded
    calls' (check.grad_output) in the output shape and dtype of `first`."""
    import torch

    check = spec.grads
    wrt = [i for i, n in enumerate(names) if n in check.wrt]
    # on copies: a forward may write its gradient over an input (Liger's fused loss), which must not spoil `args`
    out0 = first(*[a.clone() if isinstance(a, torch.Tensor) else a for a in args], **kwargs)
    make = check.grad_output or default_grad_output
    dy = make(tuple(out0.shape), out0.dtype, torch.Generator().manual_seed(seed)).to(out0.device)
    del out0

    def make_step(fn):
        own = [a.detach().clone().requires_grad_() if i in wrt else a for i, a in enumerate(args)]
        leaves = [own[i] for i in wrt]

        def step():
            for t in leaves:
                t.grad = None
            y = fn(*own, **kwargs)
            y.backward(dy)
            return y
        return step
    return make_step


def timed_steps(spec, fns: dict, args, names, kwargs: dict, seed: int = 12345) -> dict:
    """{label: step} for grader.speed.timing (step_maker's steps, dy in the first function's output shape)."""
    make_step = step_maker(spec, next(iter(fns.values())), args, names, kwargs, seed)
    return {label: make_step(fn) for label, fn in fns.items()}
