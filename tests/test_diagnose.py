"""Evidence -> category, on hand-made evidence (the end-to-end tests cover real kernels)."""
from grader.judge.diagnose import classify, coverage, key_never_changes, overall, relabel_probes

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
    v = {"side": "after", "kind": "store", "lanes": 352, "first_elem": 100000, "numel": 100000}
    assert classify(ok_call(violations=[v]))[0] == "mask"
    assert classify(ok_call(violations=[dict(v, side="before", first_elem=-5)]))[0] == "offsets"


def test_far_out_of_bounds_is_index_arithmetic_not_the_mask():
    far = {"side": "after", "kind": "load", "lanes": 1024, "first_elem": 10**9, "numel": 100000}
    assert classify(ok_call(violations=[far]))[0] == "offsets"
    assert classify(ok_call(violations=[far]), rules={"index_category": "indexing"})[0] == "indexing"
    nowhere = dict(far, first_elem=10**6, inside_no_tensor=True)
    assert classify(ok_call(violations=[nowhere]))[0] == "offsets"
    # a whole access starting right after the end: a program with no data (x.numel() rows for x.shape[0])
    extra_program = dict(far, first_elem=100000, inside_no_tensor=True)
    assert classify(ok_call(violations=[extra_program]))[0] == "grid"


def test_in_place_stores_with_unwritten_lanes_mean_a_too_strict_mask():
    ev = ok_call(unwritten=50000, stores_in_place=True, tiles={"block": 1024, "status": "o" * 49 + "." * 49})
    cat, detail = classify(ev)
    assert cat == "mask" and detail["too_strict"]


def test_second_call_returning_the_first_result_without_a_launch_is_stale():
    assert classify(ok_call(launches=[], stale=True))[0] == "stale-output"


def test_capped_grid_that_misses_tiles_is_persistent_not_grid():
    ev = ok_call(unwritten=5000, launches=[dict(LAUNCH, programs=8)], tiles={"block": 1024, "status": "o" * 90 + "." * 8})
    assert classify(ev, rules={"max_programs": 16})[0] == "persistent"


def test_autotuned_grid_must_follow_the_chosen_block():
    tune = {"problem": None, "keys": ["n"]}
    fixed = ok_call(launches=[dict(LAUNCH, programs=391, block=1024, meta={"n": 100000})])
    assert classify(fixed, rules={"autotune": tune})[0] == "autotune"
    assert classify(ok_call(launches=[dict(LAUNCH, meta={"n": 100000})]), rules={"autotune": tune}) == (None, {})


def test_guard_band_hits_on_cuda():
    assert classify(ok_call(guard_hits=[{"after": 352, "before": 0, "first_after": 0, "last_after": 351,
                                          "numel": 100000}]))[0] == "mask"
    assert classify(ok_call(guard_hits=[{"after": 0, "before": 3, "numel": 100000}]))[0] == "offsets"


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


def test_out_of_bounds_evidence_outweighs_a_values_majority():
    # CUDA calls see only wrong values (an unmasked read returned a neighbour's data); the interpreter saw the lanes.
    cats = ["reduction"] * 8 + ["mask"] * 2
    assert overall(cats) == "reduction"
    assert overall(cats, memory_categories=["mask", "mask"]) == "mask"
    assert overall(["error"] + cats, memory_categories=["mask"]) == "error"


def test_coverage_takes_the_biggest_launch():
    assert coverage([LAUNCH, dict(LAUNCH, programs=10)]) == 98 * 1024
    assert coverage([{"programs": None, "block": 1024}]) is None


# -- CUDA run + interpreter run: how the grade combines them (shapes of what the H200 produced) -----------------
def _call(device, category, **detail):
    return {"device": device, "category": category, "detail": detail}


def test_a_cuda_fault_explained_by_out_of_bounds_lanes_is_reported_as_its_cause():
    from grader.run.runner import combine
    v = {"side": "after", "first_elem": 10**9, "last_elem": 10**9 + 1023, "numel": 100000}
    calls = [_call("cuda", "crash", exception={"cuda_fault": True})] + [_call("cpu", "offsets", violation=v)] * 3
    assert combine(calls) == "offsets"
    # without lane evidence the fault stands
    assert combine([_call("cuda", "crash"), _call("cpu", None)]) == "crash"
    # a cause the interpreter found at its sizes explains a fault at CUDA's large size (int32 offsets overflowing)
    assert combine([_call("cuda", None), _call("cuda", "crash"), _call("cpu", "grid", wasted="idle")]) == "grid"


def test_the_interpreter_decides_when_both_runs_fail():
    from grader.run.runner import combine
    # CUDA has no per-program stores: "mostly unwritten" reads as offsets; the interpreter saw stores in place.
    calls = [_call("cuda", "offsets")] * 20 + [_call("cpu", "mask", too_strict=True)] * 6
    assert combine(calls) == "mask"
    # a failure only at CUDA's large size still fails the grade
    assert combine([_call("cuda", "wrong-values"), _call("cpu", None)]) == "wrong-values"
    assert combine([_call("cuda", None), _call("cpu", None)]) is None


def test_guard_hits_far_past_the_end_are_index_arithmetic():
    far = {"after": 600, "before": 0, "first_after": 0, "last_after": 6277, "numel": 104447}
    near = dict(far, last_after=351)
    assert classify(ok_call(guard_hits=[far]), rules={"index_category": "indexing"})[0] == "indexing"
    assert classify(ok_call(guard_hits=[near]))[0] == "mask"


def test_a_gap_after_the_end_is_index_arithmetic_a_contiguous_tail_is_the_mask():
    tail = {"side": "after", "kind": "load", "lanes": 300, "first_elem": 11100, "last_elem": 11399, "numel": 11100}
    assert classify(ok_call(violations=[tail]))[0] == "mask"
    gap = dict(tail, first_elem=18432, last_elem=18731)  # row 36 * BLOCK 512 for N = 300: skipped past the end
    assert classify(ok_call(violations=[gap]), rules={"index_category": "indexing"})[0] == "indexing"
    # A missing row mask in 2-D tiles: every column tile but the first starts with a gap; the first explains it.
    tiles = [dict(tail, first_elem=11100 + 32 * j, last_elem=11100 + 32 * j + 31) for j in (2, 1, 0)]
    assert classify(ok_call(violations=tiles), rules={"index_category": "indexing"})[0] == "mask"


def test_wasted_programs_are_a_grid_problem_even_with_right_values():
    work = {"launch": 0, "kernel": "k", "programs": 9604, "working": 9604, "idle": 0, "repeats": 9506,
            "distinct": 98}
    cat, detail = classify(ok_call(work=work))
    assert cat == "grid" and detail["wasted"] == "repeats"
    idle = dict(work, programs=100000, working=98, idle=99902, repeats=0)
    assert classify(ok_call(work=idle))[1]["wasted"] == "idle"
    small = dict(work, programs=16, working=1, idle=15, repeats=0)  # a fixed grid of 16 at n = 1: fine
    assert classify(ok_call(work=small, numel=1, tiles={"block": 1024, "status": "o"})) == (None, {})
    overlap = ok_call(duplicates=50000, launches=[dict(LAUNCH, programs=196, tile_elems=1024)],
                      work=dict(work, programs=196, working=196, repeats=0, distinct=196))
    assert classify(overlap)[1]["wasted"] == "overlap"


def test_unwritten_elements_by_what_the_lanes_did():
    base = dict(unwritten=5000, tiles={"block": 1024, "status": "o" * 93 + "." * 5})
    assert classify(ok_call(**base, issued_lanes=95232))[0] == "grid"  # 93 tiles of lanes for 100000 elements
    strict = classify(ok_call(**base, issued_lanes=100352, unwritten_masked=5000))
    assert strict[0] == "mask" and strict[1]["too_strict"]
    swapped = ok_call(**base, issued_lanes=131072, unwritten_unaddressed=5000,
                      launches=[dict(LAUNCH, grid=[2, 4], programs=8)], work={"idle": 4})
    assert classify(swapped)[0] == "grid"


def test_output_contract_device_layout_and_returned_input():
    assert classify(ok_call(device_ok=False, no_device={"line": 12, "tensor": "torch.empty at line 12"}))[0] == \
        "shape"
    assert classify(ok_call(layout_ok=False, got_strides=[1, 37]))[0] == "shape"
    cat, detail = classify(ok_call(inputs_mutated=[{"name": "x", "count": 5, "first": 0}], returned_input="input x"))
    assert cat == "input-mutated" and detail["returned_input"] == "input x"


def test_an_autotune_key_that_never_changes_fails_autotune():
    rules = {"autotune": {"problem": None, "keys": ["stride"]}}
    calls = [{"numel": n, "launches": [{"meta": {"stride": 1, "n_elements": n}}]} for n in (1, 1025, 12289)]
    found = key_never_changes(calls, rules)
    assert found["problem"] == "key-constant" and found["key_values"] == {"stride": 1}
    rules["autotune"]["keys"] = ["n_elements"]
    assert key_never_changes(calls, rules) is None
    assert key_never_changes(calls[:1], {"autotune": {"problem": None, "keys": ["stride"]}}) is None  # one size


def test_a_probe_that_fails_for_the_ordinary_reason_is_not_labelled_with_the_probe():
    plain = {"probe": None, "wrong": 3, "category": "reduction", "detail": {"wrong": 3}}
    probe = {"probe": "x30", "probe_category": "stability", "wrong": 16, "category": "stability", "detail": {}}
    relabel_probes([plain, probe])
    assert probe["category"] == "reduction"
    alone = {"probe": "x30", "probe_category": "stability", "wrong": 16, "category": "stability", "detail": {}}
    relabel_probes([{"probe": None, "category": None}, alone])
    assert alone["category"] == "stability"


def test_a_launch_of_zero_programs_is_the_grid():
    ev = ok_call(unwritten=1, numel=1, launches=[dict(LAUNCH, programs=0, grid=[0])], tiles={"block": 1024, "status": "."})
    assert classify(ev, rules={"max_programs": 16})[0] == "grid"


def test_stores_where_a_known_mistake_stores_name_that_mistake_before_the_tile_rules():
    """Elements never written and others written twice, exactly as a Mistake's footprint predicts: that mistake's
    category, not the generic offsets/grid reading of the tile map; without the footprint match, the tile rules."""
    mistake = {"name": "the output index was computed for stride 1", "category": "indexing",
               "footprint": {"unwritten": 265, "twice": 265, "outside": 0, "numel": 540}}
    ev = ok_call(unwritten=265, wrong=200, duplicates=265, numel=540, issued_lanes=540,
                 tiles={"block": 32, "status": "x" * 17})
    assert classify(ev, rules={"index_category": "indexing"})[0] == "offsets"  # the duplicates alone
    cat, detail = classify(dict(ev, mistake=mistake), rules={"index_category": "indexing"})
    assert cat == "indexing" and detail["mistake"]["footprint"]["twice"] == 265
    # all written, some twice, values wrong: duplicates alone say offsets; the footprint names the mistake
    full = ok_call(wrong=300, duplicates=40, numel=540)
    assert classify(full)[0] == "offsets"
    assert classify(dict(full, mistake=mistake))[0] == "indexing"
