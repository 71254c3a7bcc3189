"""The cross-entropy drill's own parts (drills/cross_entropy_spec.py): its inputs, its loss and gradient mistake
models against the truth, the gradient scale, the memory rule of grader/families/training.py (an input holding its
own gradient, a (T, V) buffer beside it), and `drill bench`'s forward + backward path with its memory column. The
graded submissions are in tests/submissions/{wrong,correct}/cross_entropy_*.py (tests/test_submissions.py)."""
import torch
import torch.nn.functional as F

import drills
from grader.families import training
from grader.speed import bench, timing
from grader.watch.memory import Memory

SPEC = drills.get_spec("cross-entropy")


def _case(size=(9, 301), seed=0, make=None, dy=0.7, ignore_index=-100):
    logits, target = (make or SPEC.make_inputs)(size, torch.Generator().manual_seed(seed))
    x = logits.double().requires_grad_()
    loss = F.cross_entropy(x, target, ignore_index=ignore_index)
    loss.backward(torch.tensor(dy, dtype=torch.float64))
    return (logits.double(), target), torch.tensor(dy, dtype=torch.float64), loss.detach(), x.grad


def test_inputs_mix_ignored_rows_and_an_all_ignored_batch_gives_nan_and_a_zero_gradient():
    (logits, target), _, loss, grad = _case()
    ignored = target == -100
    assert ignored.any() and not ignored[0] and target.dtype == torch.int64
    assert torch.isfinite(loss) and bool((grad[ignored] == 0).all())
    all_ignored = next(p for p in SPEC.probes if p.name == "all ignored")
    (logits, target), _, loss, grad = _case((5, 100), make=all_ignored.make_inputs)
    assert bool((target == -100).all()) and torch.isnan(loss) and bool((grad == 0).all())
    assert SPEC.reference(logits, target.double()).isnan()  # the grader hands references float64 targets


def test_every_loss_mistake_differs_from_the_truth_where_it_applies():
    (logits, target), _, loss, _ = _case()
    applied = 0
    for m in SPEC.mistakes:
        wrong = m.reference(logits, target.double(), meta={})
        if wrong is None or m.category == "stability":  # no max subtracted is right until exp overflows
            continue
        applied += 1
        assert wrong.shape == loss.shape and not torch.allclose(wrong, loss), m.name
    assert applied == len(SPEC.mistakes) - 2  # no max and the all-ignored 0 need their probes
    big = next(p for p in SPEC.probes if p.name == "large logits")
    (logits, target), _, loss, _ = _case((4, 301), make=big.make_inputs)
    assert torch.isinf(SPEC.mistakes[0].reference(logits, target, meta={})) and torch.isfinite(loss)


def test_every_gradient_mistake_differs_from_the_truth():
    inputs, dy, _, grad = _case()
    for m in SPEC.grads.mistakes:
        wrong = m.reference(*inputs, dy=dy, launches=[])
        assert wrong is not None and wrong.shape == grad.shape, m.name
        assert not torch.allclose(wrong, grad, rtol=1e-3, atol=1e-9), m.name


def test_the_gradient_scale_bounds_the_true_gradient_and_the_loss_scale_the_loss():
    for make in (None, next(p for p in SPEC.probes if p.name == "large logits").make_inputs):
        inputs, dy, loss, grad = _case(make=make)
        scale = SPEC.grads.error_scale("logits.grad", list(inputs), dy)
        assert scale.shape == grad.shape and bool((grad.abs() <= scale * (1 + 1e-9)).all())
        assert float(loss.abs()) <= float(SPEC.error_scale(*inputs))


def _backward_with(grad_region: str, extra=None):
    """A Backward whose learner returned a gradient in `grad_region` ("input": the logits' own storage, "alloc": a
    new buffer), with an optional extra allocation of `extra` elements."""
    memory = Memory("cpu")
    logits, target = SPEC.make_inputs((6, 50), torch.Generator().manual_seed(1))
    guarded = [memory.place(logits, "input logits"), memory.place(target, "input target")]
    b = training.Backward(SPEC.grads, SPEC.reference, [logits, target], guarded, ["logits", "target"], memory, 0, {})
    if grad_region == "input":
        g = guarded[0]
    else:
        g = memory.guarded((6, 50), torch.float32, "torch.empty_like at line 9", "alloc", fill_value=0)
    if extra:
        memory.guarded((extra,), torch.float32, "torch.empty at line 7", "alloc", fill_value=0)
    b.grads = (g,)
    return b, memory


def test_an_input_overwritten_with_its_own_gradient_is_not_mutated_and_a_tv_buffer_is_memory():
    b, memory = _backward_with("input")
    ev = {"inputs_mutated": [{"name": "logits", "count": 300, "first": 0}]}
    b.allow_in_place(ev, memory)
    assert ev["inputs_mutated"] == [] and ev["grad_in_place"] == ["logits"]
    assert b.big_allocation(memory, None) is None
    b, memory = _backward_with("alloc")  # the gradient in a new buffer: not in place, still mutated if changed
    ev = {"inputs_mutated": [{"name": "logits", "count": 3, "first": 0}]}
    b.allow_in_place(ev, memory)
    assert ev["inputs_mutated"] and b.big_allocation(memory, None) is None
    b, memory = _backward_with("alloc", extra=6 * 50)  # a softmax kept beside the gradient
    big = b.big_allocation(memory, None)
    assert big["tensor"] == "torch.empty at line 7" and big["numel"] == 300 and big["limit"] == 150
    assert training.classify({"memory": big}, None, {}, SPEC.grads) == ("memory", {"memory": big})
    b, memory = _backward_with("alloc", extra=150)  # half the logits: still under the limit
    assert b.big_allocation(memory, None) is None


def test_bench_times_forward_and_backward_on_own_copies_with_a_memory_column(monkeypatch):
    """`drill bench` for a training drill, on CPU with do_bench and torch.compile faked: every provider gets its
    own copy of the logits (a candidate that overwrites its input, as Liger does, is still checked right), each
    step runs backward, and the tables add forward + backward to the time's title and a memory table."""
    seen = []

    def in_place(logits, target, ignore_index=-100):  # right loss, then the logits overwritten (Liger's forward)
        loss = F.cross_entropy(logits, target, ignore_index=ignore_index)
        seen.append(logits.data_ptr())
        logits.data.zero_()
        return loss

    monkeypatch.setattr(torch, "compile", lambda fn, dynamic=None: fn)
    monkeypatch.setattr(torch._dynamo, "reset", lambda: None)
    backwards = []
    monkeypatch.setattr(timing, "bench_ms", lambda fn, **kw: (fn(), backwards.append(1), 0.5)[-1])
    monkeypatch.setattr(timing, "best_copy", lambda n, **kw: {"kind": "x.clone()", "ms": 0.01, "gbps": 4000.0,
                                                              "all_ms": {}})
    providers = {"yours": in_place, "eager": SPEC.eager, "compile": SPEC.eager}
    result = {"drill": SPEC.name, "providers": list(providers), "rows": [], "peak_gbps": 4800.0}
    bench._sweep_sizes(SPEC, providers, [(7, 3001)], result, device="cpu")
    row = result["rows"][0]
    assert row["wrong"] == 0 and set(row["ms"]) == set(providers) and set(row["peak_bytes"]) == set(providers)
    assert row["bytes"] == 2 * 7 * 3001 * 4 + 8 * 7 and len(seen) == 4  # checked, dy drawn, 1 step, 1 timed
    titles = [t for t, _, _ in bench.tables(result)]
    assert titles[0].startswith("µs (forward + backward") and titles[-1].startswith("peak extra MB")


def test_a_mock_can_draw_cross_entropy_with_its_clock_and_grades_it(tmp_path):
    """`drill mock` with cross-entropy drawn: its skeleton is handed out, the coding clock is the drill's 35 minutes,
    and the real grader fails the skeleton with `hole` and passes the reference."""
    import shutil

    from coach.mock import interview as M
    from grader.core.spec import ROOT
    from grader.run import runner

    assert M.coding_minutes(["vector-add", "cross-entropy"], None) == 35
    clock = M.FakeClock()
    tasks, qs = M.prepare(tmp_path / "mock", ["cross-entropy"], [])
    t = tasks[0]
    assert "HOLE(" in t.path.read_text()
    mock = M.Mock(tasks, qs, code_seconds=60, oral_seconds=60, clock=clock,
                  grader=lambda path, drill: runner.grade(path, drill=drill, device="cpu"))
    script = [(1, lambda: t.path.write_text(t.path.read_text() + "\n")),
              (2, lambda: shutil.copy(ROOT / "solutions" / "cross_entropy.py", t.path)),
              (3, "")]
    card = M.run(mock, M.ScriptedInput(clock, script, eof=True), poll_s=0.5)
    assert [d["verdict"].diagnosis for k, d in mock.events if k == "graded"] == ["hole", None]
    assert card["code"][0]["passed"]


def test_cuda_peak_rule_does_not_count_drills_own_guard_bands():
    """On CUDA the call's peak memory includes the guard bands drill puts around every allocation the wrapper makes
    (found on the H200: the reference's three small buffers came to 1.1 MB of bands and failed `memory`). The bands
    are drill's; a buffer of the learner's own above the limit still fails."""
    from types import SimpleNamespace

    import torch

    from grader.families.training import Backward
    from grader.watch.memory import GUARD_ELEMS, Memory

    memory = Memory("cpu")
    logits = memory.place(torch.zeros(7, 3001), "input logits")
    before = {id(r) for r in memory.regions}
    for shape in ((1,), (7,), ()):  # the reference's n_valid, loss_rows, loss
        memory.guarded(shape, torch.float32, "torch.empty", "alloc")
    call = SimpleNamespace(alloc_limit=7 * 3001 // 2, grads=[logits], before=before, leaves=[logits])
    bands = 3 * 2 * GUARD_ELEMS * 4
    assert Backward.big_allocation(call, memory, peak=bands + 36) is None
    learners_own = 7 * 3001 * 4  # a float32 (T, V) copy made by a torch op on the GPU
    big = Backward.big_allocation(call, memory, peak=bands + learners_own)
    assert big is not None and big["peak_bytes"] == bands + learners_own


def test_cuda_peak_rule_does_not_count_the_watchs_moment_of_two_copies():
    """drill's watch calls the learner's torch.empty_like, then copies it into a guarded buffer: for a moment both
    exist, and on CUDA that moment is in the peak (the H200 showed it: a recompute-style backward's empty_like(logits)
    gradient went 45 KB over at (7, 3001) bf16). That original is drill's; a second (T, V) buffer still fails."""
    from types import SimpleNamespace

    import torch

    from grader.families.training import Backward
    from grader.watch.memory import GUARD_ELEMS, Memory

    memory = Memory("cpu")
    logits = memory.place(torch.zeros(7, 3001, dtype=torch.bfloat16), "input logits")
    before = {id(r) for r in memory.regions}
    grad = memory.guarded((7, 3001), torch.bfloat16, "torch.empty_like", "alloc")
    call = SimpleNamespace(alloc_limit=7 * 3001 // 2, grads=[grad], before=before, leaves=[logits])
    bands = 2 * GUARD_ELEMS * 2
    own = 7 * 3001 * 2
    original = -(-own // 512) * 512
    assert Backward.big_allocation(call, memory, peak=bands + own + original) is None
    big = Backward.big_allocation(call, memory, peak=bands + own + original + 7 * 3001 * 4)
    assert big is not None and "peak_bytes" in big
