"""Evidence -> category, on hand-made evidence (the end-to-end tests cover real kernels)."""
from grader.diagnose import classify, coverage, overall

LAUNCH = {"kernel": "k", "programs": 98, "block": 1024, "grid": [98]}


def ok_call(**kw):
    ev = {"returned": "tensor", "launches": [LAUNCH], "torch_ops": [], "dtype_ok": True, "shape_ok": True,
          "device_ok": True, "violations": [], "guard_hits": [], "inputs_mutated": [], "unwritten": 0, "wrong": 0,
          "numel": 100000, "tiles": {"block": 1024, "status": "o" * 98}, "duplicates": 0}
    ev.update(kw)
    return ev


def test_clean_call_passes():
    assert classify(ok_call()) == (None, {})


def test_out_of_bounds_past_the_end_is_mask_and_before_the_start_is_offsets():
    v = {"side": "after", "kind": "store", "lanes": 352}
    assert classify(ok_call(violations=[v]))[0] == "mask"
    assert classify(ok_call(violations=[dict(v, side="before")]))[0] == "offsets"


def test_guard_band_hits_on_cuda():
    assert classify(ok_call(guard_hits=[{"after": 352, "before": 0}]))[0] == "mask"
    assert classify(ok_call(guard_hits=[{"after": 0, "before": 3}]))[0] == "offsets"


def test_unwritten_tail_with_too_small_grid_is_grid():
    ev = ok_call(unwritten=672, launches=[dict(LAUNCH, programs=97)],
                 tiles={"block": 1024, "status": "o" * 97 + "."})
    cat, detail = classify(ev)
    assert cat == "grid" and detail["coverage"] == 97 * 1024


def test_unwritten_with_full_coverage_is_offsets_or_strict_mask():
    mostly = ok_call(unwritten=90000, tiles={"block": 1024, "status": "o" + "." * 97})
    assert classify(mostly)[0] == "offsets"
    dup = ok_call(unwritten=5, duplicates=7, tiles={"block": 1024, "status": "o" * 97 + "."})
    assert classify(dup)[0] == "offsets"
    tail = ok_call(unwritten=1, tiles={"block": 1024, "status": "o" * 97 + "."})
    cat, detail = classify(tail)
    assert cat == "mask" and detail["too_strict"]
    scattered = ok_call(unwritten=3, tiles={"block": 1024, "status": "o" * 40 + "." + "o" * 57})
    assert classify(scattered)[0] == "unwritten"


def test_decisive_categories():
    assert classify(ok_call(exception={"type": "ValueError", "message": "x", "line": 3}))[0] == "error"
    assert classify(ok_call(exception={"type": "RuntimeError", "message": "illegal memory access",
                                       "cuda_fault": True}))[0] == "crash"
    assert classify(ok_call(returned="NoneType"))[0] == "error"
    assert classify(ok_call(torch_ops=[{"op": "torch.add", "line": 4}]))[0] == "torch-fallback"
    assert classify(ok_call(launches=[]))[0] == "no-kernel"
    assert classify(ok_call(launches=[LAUNCH, LAUNCH]), max_launches=1)[0] == "fusion"
    assert classify(ok_call(dtype_ok=False, expected_dtype="float32", got_dtype="float16"))[0] == "dtype"
    assert classify(ok_call(shape_ok=False))[0] == "shape"
    assert classify(ok_call(inputs_mutated=[{"name": "x", "count": 3, "first": 0}]))[0] == "input-mutated"
    assert classify(ok_call(wrong=12))[0] == "wrong-values"
    assert classify(ok_call(stale=True))[0] == "stale-output"


def test_overall_prefers_decisive_then_majority():
    assert overall([None, None]) is None
    assert overall(["mask", "error", "mask"]) == "error"
    assert overall(["mask", "offsets", "offsets", None]) == "offsets"
    assert overall(["offsets", "mask"]) == "mask"  # a tie goes to the earlier category


def test_coverage_takes_the_biggest_launch():
    assert coverage([LAUNCH, dict(LAUNCH, programs=10)]) == 98 * 1024
    assert coverage([{"programs": None, "block": 1024}]) is None
