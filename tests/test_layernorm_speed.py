"""Issue 21: the speed gate of a training drill times forward + backward (grader.families.training.timed_steps,
grader.speed.timing), the layernorm spec carries a gate, and the known-slow version is a correct layernorm. The
H200 side (calibration over 20 runs): benchmarks/layernorm_gate.py; the candidates: benchmarks/layernorm_candidates.py."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import interp_script
import pytest
import torch
import torch.nn.functional as F

from drills import get_spec
from grader.families import training
from grader.speed import timing

ROOT = Path(__file__).resolve().parent.parent


class _CountingLayerNorm(torch.autograd.Function):
    """F.layer_norm whose backward counts its calls: the gate's step must run it."""
    backwards = 0

    @staticmethod
    def forward(ctx, x, w, b):
        with torch.enable_grad():
            xs, ws, bs = (t.detach().requires_grad_() for t in (x, w, b))
            y = F.layer_norm(xs, (x.shape[-1],), ws, bs, 1e-5)
        ctx.graph = (xs, ws, bs, y)
        return y.detach()

    @staticmethod
    def backward(ctx, dy):
        _CountingLayerNorm.backwards += 1
        xs, ws, bs, y = ctx.graph
        return torch.autograd.grad(y, (xs, ws, bs), dy)


def _counting(x, weight, bias, eps=1e-5):
    return _CountingLayerNorm.apply(x, weight, bias)


def test_timed_steps_run_the_backward_with_their_own_leaves():
    spec = get_spec("layernorm")
    args = spec.make_inputs((6, 33), torch.Generator().manual_seed(0))
    steps = training.timed_steps(spec, {"a": _counting, "b": spec.eager}, args, ["x", "weight", "bias"], {})
    _CountingLayerNorm.backwards = 0
    y_a, y_b = steps["a"](), steps["b"]()
    assert _CountingLayerNorm.backwards == 1
    assert torch.allclose(y_a, y_b, atol=1e-6)
    assert not any(t.requires_grad for t in args)  # the drawn inputs are not the leaves
    steps["a"]()
    assert _CountingLayerNorm.backwards == 2  # gradients cleared, not accumulated: the step can repeat


def test_the_training_gate_times_forward_and_backward(monkeypatch):
    """speed_report's data flow for layernorm on CPU, timings faked: every timed call is a whole step (the counting
    backward runs once per timed call), the verdict is the ratio, and on a machine that cannot capture a CUDA graph
    the method says do_bench."""
    spec = dataclasses.replace(get_spec("layernorm"), bench_size=(5, 40), small_size=(2, 17))
    times = iter([0.100, 0.200] * timing.ROUNDS + [0.01] * 6)
    timed = []

    def fake_bench(fn, **kw):
        fn()
        timed.append(1)
        return next(times)
    monkeypatch.setattr(timing, "bench_ms", fake_bench)
    monkeypatch.setattr(timing, "copy_bandwidth", lambda n, name, say: (1e12, True))
    monkeypatch.setattr(timing, "WALL_CALLS", 1)
    _CountingLayerNorm.backwards = 0
    t = timing.speed_report(spec, _counting, "fake", say=lambda m: None, device="cpu")
    assert t["speedup"] == pytest.approx(2.0) and t["category"] is None and t["wrong"] == 0
    candidate_calls = timing.ROUNDS + 3 + 10 + 1  # rounds, small-size benches, wall warm-up + calls
    assert _CountingLayerNorm.backwards >= candidate_calls
    assert "do_bench" in t["method"]
    assert t["fused_bytes"] == spec.byte_model((5, 40))["fused"]


def test_the_training_gate_fails_a_slow_step(monkeypatch):
    spec = dataclasses.replace(get_spec("layernorm"), bench_size=(5, 40), small_size=(2, 17))
    times = iter([0.400, 0.200] * timing.ROUNDS + [0.01] * 6)
    monkeypatch.setattr(timing, "bench_ms", lambda fn, **kw: (fn(), next(times))[1])
    monkeypatch.setattr(timing, "copy_bandwidth", lambda n, name, say: (1e12, True))
    monkeypatch.setattr(timing, "WALL_CALLS", 1)
    t = timing.speed_report(spec, _counting, "fake", say=lambda m: None, device="cpu")
    assert t["category"] == "too-slow" and t["speedup"] == pytest.approx(0.5)


def test_layernorm_bytes_floor_at_the_gate_size():
    spec = get_spec("layernorm")
    m, n = spec.bench_size
    assert spec.speedup_min is not None and spec.speedup_min > 1
    assert spec.byte_model((m, n))["fused"] == 5 * m * n * 2 + 4 * n * 2 + 4 * m * 4  # fp16 at the gate size


_CHECK = """
import importlib.util
import torch, torch.nn.functional as F
s = importlib.util.spec_from_file_location("ln_under_test", sys.argv[2])
mod = importlib.util.module_from_spec(s); s.loader.exec_module(mod)
gen = torch.Generator().manual_seed(1)
x = torch.randn(19, 300, generator=gen).requires_grad_()
w = (torch.rand(300, generator=gen) + 0.5).requires_grad_()
b = torch.randn(300, generator=gen).requires_grad_()
dy = torch.randn(19, 300, generator=gen)
mod.layernorm(x, w, b).backward(dy)
x2, w2, b2 = (t.detach().double().requires_grad_() for t in (x, w, b))
F.layer_norm(x2, (300,), w2, b2, 1e-5).backward(dy.double())
for g, r in zip([x.grad, w.grad, b.grad], [x2.grad, w2.grad, b2.grad]):
    assert torch.allclose(g.double(), r, rtol=1e-4, atol=1e-4), float((g.double() - r).abs().max())
print('RESULT {"ok": true}')
"""


@pytest.mark.parametrize("path", ["solutions/layernorm.py", "benchmarks/known_slow/layernorm_tutorial_locks.py"])
def test_reference_and_known_slow_are_right_under_the_interpreter(path):
    """Both timed versions compute LayerNorm and its three gradients (the gate compares speed, not values). In a
    fresh interpreter process: TRITON_INTERPRET must be set before triton is imported."""
    assert interp_script.run(_CHECK, str(ROOT / path), timeout=300) == {"ok": True}
