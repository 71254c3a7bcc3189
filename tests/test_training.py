"""The training family (grader/families/training.py): the learner's backward under the watch, the race finder, the
gradient folding, the layernorm spec's mistake models, and benchmarks/training.py's CPU-free parts. The graded
submissions themselves are in tests/submissions/{wrong,correct}/layernorm_*.py (tests/test_submissions.py)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import drills
from grader.families import training
from grader.watch.memory import Memory
from grader.watch.torch_watch import TorchWatch

ROOT = Path(__file__).resolve().parent.parent


class _Recorder:
    depth = 0
    launches: list = []


def _backward_for(fn_out, wrt=("x",)):
    """A Backward over one input x (4, 5) whose reference is x * 2."""
    memory = Memory("cpu")
    x = torch.randn(4, 5)
    guarded = [memory.place(x, "input x")]
    check = training.GradCheck(wrt=wrt)
    bwd = training.Backward(check, lambda x: x * 2, [x], guarded, ["x"], memory, 0, {})
    return bwd, guarded, memory


class _Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, dy):
        return torch.mul(dy, 2)  # a torch op in the backward: the watch must see it


class _Raises(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, dy):
        raise ValueError("learner's backward failed")


def test_the_backward_runs_under_the_watch_and_its_ops_are_recorded():
    bwd, guarded, memory = _backward_for(None)
    watch = TorchWatch(memory, _Recorder(), "/nowhere.py")
    with watch:
        pass
    y = _Double.apply(guarded[0])
    bwd.run(y, watch)
    assert [o["op"] for o in watch.ops] == ["torch.mul"]
    assert torch.allclose(bwd.grads[0], bwd.dy.double().float() * 2)
    assert torch._C._len_torch_function_stack() == 0


def test_a_backward_that_raises_leaves_no_mode_behind():
    bwd, guarded, memory = _backward_for(None)
    watch = TorchWatch(memory, _Recorder(), "/nowhere.py")
    y = _Raises.apply(guarded[0])
    with pytest.raises(ValueError, match="learner's backward failed"):
        bwd.run(y, watch)
    assert torch._C._len_torch_function_stack() == 0


def test_an_output_without_a_graph_is_named():
    bwd, guarded, memory = _backward_for(None)
    bwd.run(guarded[0].detach() * 2, TorchWatch(memory, _Recorder(), "/nowhere.py"))
    assert bwd.problem == {"autograd": "no-graph"}
    ev = {"returned": "tensor", "wrong": 0, "unwritten": 0}
    bwd.judge(ev, [guarded[0]], memory, [], True, "cpu", None)
    assert training.classify(ev, None, {}, bwd.check) == ("autograd", {"autograd": "no-graph"})


def test_a_wrong_forward_is_not_judged_on_its_gradients():
    ev = {"returned": "tensor", "wrong": 3, "numel": 10}
    assert training.forward_failed(ev)
    assert not training.forward_failed({"returned": "tensor", "wrong": 0, "unwritten": 0, "shape_ok": True})


def _region_with_stores(memory, stores):
    t = memory.guarded((8,), torch.float32, "torch.zeros at line 9", "alloc", fill_value=0)
    r = memory.region_of(t)
    r.stored = [(launch, program, np.array(elems, dtype=np.int64), atomic) for launch, program, elems, atomic in stores]
    return r


def test_two_programs_storing_one_scratch_element_without_atomics_is_a_race():
    memory = Memory("cpu")
    _region_with_stores(memory, [(0, 0, [0, 1], False), (0, 1, [1, 2], False)])
    race = training.find_race(memory, [{"kernel": "bwd", "line": 12}])
    assert race["elements"] == 1 and race["first"] == 1 and race["kernel"] == "bwd" and race["line"] == 12


def test_a_launch_with_a_lock_or_separate_rows_is_not_a_race():
    memory = Memory("cpu")
    # tutorial 05: the same elements from two programs, but the launch takes a lock (atomic_cas) first
    _region_with_stores(memory, [(0, 0, [0, 1], False), (0, 1, [0, 1], False), (0, 1, [7], True)])
    assert training.find_race(memory, [{}]) is None
    memory = Memory("cpu")
    _region_with_stores(memory, [(0, 0, [0, 1], False), (0, 1, [2, 3], False), (1, 0, [0, 1], False)])
    assert training.find_race(memory, [{}, {}]) is None  # one owner per element in each launch


def test_a_plain_values_failure_in_a_gradient_takes_the_gradients_category():
    check = training.GradCheck(wrt=("x",), value_categories={"x.grad": "dx"})
    ev = {"grad_of": "x.grad", "wrong": 5}
    assert training.classify(ev, "wrong-values", {"wrong": 5}, check) == ("dx", {"wrong": 5, "grad_of": "x.grad"})
    ev["mistake"] = {"name": "m", "category": "dwdb"}
    assert training.classify(ev, "dwdb", {}, check)[0] == "dwdb"


def _ln_case(m=7, n=33, seed=0):
    spec = drills.get_spec("layernorm")
    x, w, b = [t.double() for t in spec.make_inputs((m, n), torch.Generator().manual_seed(seed))]
    dy = torch.randn(m, n, generator=torch.Generator().manual_seed(seed + 1), dtype=torch.float64)
    leaves = [t.clone().requires_grad_() for t in (x, w, b)]
    F.layer_norm(leaves[0], (n,), leaves[1], leaves[2], 1e-5).backward(dy)
    return spec, (x, w, b), dy, [t.grad for t in leaves]


def test_the_layernorm_gradient_mistakes_differ_from_the_truth():
    spec, inputs, dy, (dx, dw, db) = _ln_case()
    true = {"x.grad": dx, "weight.grad": dw, "bias.grad": db}
    launches = [{"meta": {"GROUP_SIZE_M": 4, "BLOCK_SIZE_N": 64}, "programs": 7}]
    for m in spec.grads.mistakes:
        wrong = m.reference(*inputs, dy=dy, launches=launches)
        for candidate in (wrong if isinstance(wrong, list) else [wrong]):
            assert candidate.shape == true[m.tensor].shape, m.name
            assert not torch.allclose(candidate, true[m.tensor]), m.name


def test_the_layernorm_gradient_scale_bounds_the_true_gradients():
    spec, inputs, dy, grads = _ln_case()
    for name, g in zip(("x.grad", "weight.grad", "bias.grad"), grads):
        scale = spec.grads.error_scale(name, list(inputs), dy)
        assert scale.shape == g.shape and bool((g.abs() <= scale * (1 + 1e-9)).all()), name


def _benchmark():
    path = ROOT / "benchmarks" / "training.py"
    spec = importlib.util.spec_from_file_location("benchmarks_training", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_benchmark_bytes_floors():
    b = _benchmark()
    assert b.layernorm_bytes((4096, 8192), 2) == 5 * 4096 * 8192 * 2 + 4 * 8192 * 2 + 4 * 4096 * 4
    assert b.cross_entropy_bytes((8192, 128256), 2) == 2 * 8192 * 128256 * 2 + 8192 * 8


def test_benchmark_checks_and_steps_run_on_the_cpu():
    b = _benchmark()
    x = torch.randn(8, 40, requires_grad=True)
    w = torch.rand(40, requires_grad=True)
    bias = torch.randn(40, requires_grad=True)
    dy = torch.randn(8, 40)

    def eager(x, w, b, eps):
        return F.layer_norm(x, (x.shape[-1],), w, b, eps)

    assert b.check_layernorm(eager, x.detach(), w.detach(), bias.detach(), dy) < 1e-6
    b.ln_step(eager, x, w, bias, dy)()
    assert x.grad is not None and w.grad is not None and bias.grad is not None
    logits = torch.randn(6, 11, requires_grad=True)
    b.ce_step(lambda l, t: F.cross_entropy(l, t), logits, torch.randint(0, 11, (6,)))()
    assert logits.grad is not None


@pytest.mark.skipif(torch.cuda.is_available(), reason="the no-GPU path")
def test_benchmark_without_a_gpu_says_so(tmp_path, capsys):
    assert _benchmark().main(["--out", str(tmp_path)]) == 2
    assert "needs a CUDA GPU" in capsys.readouterr().out
