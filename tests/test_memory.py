"""Guard bands and sentinels, without a kernel: the CUDA-side evidence, checked on CPU tensors."""
import torch

from grader.memory import GUARD_ELEMS, Memory, is_sentinel


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


def test_bf16_and_fp16_sentinels_are_nan():
    mem = Memory("cpu")
    for dtype in (torch.bfloat16, torch.float16, torch.float64):
        t = mem.guarded((4,), dtype, "t", "alloc")
        assert torch.isnan(t).all() and is_sentinel(t).all()
