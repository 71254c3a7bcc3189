"""Guard bands and sentinels, without a kernel: the CUDA-side evidence, checked on CPU tensors."""
import torch

from grader.watch.memory import GUARD_ELEMS, Memory, is_sentinel


def test_empty_allocations_hold_the_sentinel_and_guards_catch_overruns():
    mem = Memory("cpu")
    out = mem.guarded((100,), torch.float32, "out", "alloc")
    assert is_sentinel(out).all()
    out[:] = 1.0
    r = mem.regions[0]
    assert r.guard_hits()["after"] == 0
    r.buffer[GUARD_ELEMS + 100: GUARD_ELEMS + 103] = 5.0  # what an unmasked tail store does on a GPU
    hits = r.guard_hits()
    assert hits["after"] == 3 and hits["first_after"] == 0 and hits["before"] == 0


def test_owner_lookup_by_address():
    mem = Memory("cpu")
    x = mem.place(torch.ones(10), "input x")
    import numpy as np
    base = x.data_ptr()
    owners = mem.owners(np.array([base, base + 36, base + 40], dtype=np.uint64))
    assert owners[0] == owners[1] >= 0 and owners[2] == -1


def test_sole_owner_is_the_region_of_every_address_or_none():
    """The lane checker's fast path: one region for all lanes, else None (then the per-lane `owners`)."""
    import numpy as np

    mem = Memory("cpu")
    x = mem.place(torch.ones(10), "input x")
    y = mem.place(torch.ones(10), "input y")
    bx, by = np.uint64(x.data_ptr()), np.uint64(y.data_ptr())
    ix, iy = (int(mem.owners(np.array([b], dtype=np.uint64))[0]) for b in (bx, by))
    assert mem.sole_owner(bx + np.arange(10, dtype=np.uint64) * 4) == ix
    assert mem.sole_owner(np.array([by + 36, by], dtype=np.uint64)) == iy
    assert mem.sole_owner(np.array([bx, bx + 40], dtype=np.uint64)) is None  # one past x's end
    assert mem.sole_owner(np.array([bx, by], dtype=np.uint64)) is None       # two tensors
    assert mem.sole_owner(np.array([min(bx, by) - 4], dtype=np.uint64)) is None
    assert Memory("cpu").sole_owner(np.array([bx], dtype=np.uint64)) is None  # no regions at all


def test_bf16_and_fp16_sentinels_are_nan():
    mem = Memory("cpu")
    for dtype in (torch.bfloat16, torch.float16, torch.float64):
        t = mem.guarded((4,), dtype, "t", "alloc")
        assert torch.isnan(t).all() and is_sentinel(t).all()


def test_a_transposed_input_keeps_its_layout_inside_guard_bands():
    import torch

    from grader.watch.memory import GUARD_ELEMS, Memory

    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    mem = Memory("cpu")
    placed = mem.place(base.t(), "input b")  # (4, 3) with strides (1, 4)
    assert placed.stride() == (1, 4) and torch.equal(placed, base.t())
    region = mem.region_of(placed)
    assert region.end - region.start == 12 * 4
    region.buffer[GUARD_ELEMS + 12] = 0.0  # one element past the view's extent
    assert region.guard_hits()["after"] == 1


def test_a_sliced_view_spans_its_gaps():
    import torch

    from grader.watch.memory import Memory, span_elems

    x = torch.zeros(4, 10)[:, ::2]
    assert span_elems(x.shape, x.stride()) == 1 + 3 * 10 + 4 * 2
    mem = Memory("cpu")
    placed = mem.place(x, "input x")
    assert placed.stride() == x.stride()
    r = mem.region_of(placed)
    assert (r.end - r.start) // 4 == span_elems(x.shape, x.stride())
