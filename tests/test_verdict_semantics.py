"""Issue 17: the verdict follows what Triton and PyTorch define. Pure functions over evidence; the graded files that
hold the same rules end to end are in tests/submissions/issue17/ (each with the words its report must contain)."""
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from grader.judge.diagnose import (drop_unproven_other, extra_bytes, mask_axis, out_of_bounds_category,
                                   side_output, swapped_axis)
from grader.judge.layout import LogicalIndex, dense_non_overlapping
from grader.reporting.report import mask_source_line
from grader.watch.access import describe


# -- 3. the output contract is PyTorch's ------------------------------------------------------------------------------

@pytest.mark.parametrize("make,dense", [
    (lambda: torch.empty(4, 5), True),
    (lambda: torch.empty(5, 4).t(), True),                        # column-major: a permutation of a contiguous block
    (lambda: torch.empty(2, 3, 4, 5).transpose(1, 2), True),      # empty_like of a (B, S, H, D).transpose(1, 2)
    (lambda: torch.empty(4, 8)[:, :5], False),                    # a slice of a padded buffer: gaps
    (lambda: torch.empty(4, 1).expand(4, 5), False),              # elements share memory
    (lambda: torch.empty(1, 7), True),
])
def test_dense_non_overlapping_is_pytorchs_notion(make, dense):
    assert dense_non_overlapping(make()) is dense


def test_logical_index_maps_storage_offsets_of_any_stride_order():
    t = torch.empty(2, 3, 4, 5).transpose(1, 2)  # logical (2, 4, 3, 5), storage (2, 3, 4, 5)
    li = LogicalIndex(t)
    ref = torch.arange(t.numel()).view(2, 3, 4, 5).transpose(1, 2).reshape(-1)  # storage offset at each logical index
    # the element at storage offset ref[i] is logical index i
    assert np.array_equal(li(ref.numpy()), np.arange(t.numel()))
    assert LogicalIndex(torch.empty(3, 4))(np.array([0, 11, 12, -1])).tolist() == [0, 11]


# -- 5. the fusion proof is asymptotic ----------------------------------------------------------------------------------

def _store(name, shape, nbytes, output=False, elsize=4, distinct=None, kind="alloc", restored=0):
    numel = int(np.prod(shape))
    row = {"tensor": name, "kind": kind, "shape": list(shape), "dtype": "float32", "numel": numel, "elsize": elsize,
           "bytes": nbytes, "distinct": distinct if distinct is not None else nbytes // elsize, "output": output}
    if output:
        row["restored_bytes"] = restored
    return row


def _attention_call(*extra, restored=0, stored_out=None):
    out = _store("torch.empty_like at line 80", (1, 2, 100, 64), stored_out or 25600, output=True, elsize=2,
                 distinct=12800, restored=restored)
    stores = [out, *extra]
    return {"bytes": {"loaded": 10**6, "stored": sum(r["bytes"] for r in stores)},
            "bytes_model": {"n": 12800, "stored": 25600}, "stores": stores}


def test_a_logsumexp_side_output_is_allowed_and_named():
    lse = _store("torch.empty at line 81", (1, 2, 100), 800)
    assert side_output(lse, _attention_call()["stores"][0])
    assert extra_bytes(_attention_call(lse)) is None


def test_a_logsumexp_rounded_to_the_block_is_still_per_row():
    # Tri Dao's kernel: lse is (B, H, roundup(S, 128)) float32, at S = 17 larger than 2 values per row
    out = _store("o", (2, 2, 17, 32), 4352, output=True, elsize=2, distinct=2176)
    assert side_output(_store("torch.empty at line 131", (2, 2, 128), 2048), out)
    assert not side_output(_store("scores", (2, 2, 100, 100), 160000), _store("o", (2, 2, 100, 64), 51200,
                                                                               output=True, elsize=2))


def test_a_per_row_scratch_stored_every_key_block_is_a_round_trip():
    # Tri Dao's TMP workaround: (B, H, roundup(S, 128)) float32, stored (and loaded back) once per key block
    out = _store("o", (1, 2, 100, 64), 25600, output=True, elsize=2, distinct=12800)
    tmp = _store("torch.empty at line 118", (1, 2, 128), 2 * 128 * 4 * 2, distinct=256)
    assert not side_output(tmp, out)


def test_the_scores_buffer_is_the_intermediate_and_named_with_what_was_stored():
    scores = _store("torch.empty at line 82", (1, 2, 100, 100), 80000)
    d = extra_bytes(_attention_call(scores))
    assert d["stored_only"] and d["extra"] == 80000
    assert d["into"] == [{"tensor": "torch.empty at line 82", "shape": [1, 2, 100, 100], "dtype": "float32",
                          "bytes": 80000, "distinct": 20000, "elsize": 4}]


def test_edge_tiles_restoring_the_output_are_not_an_intermediate():
    # another program stored the same output elements again: 30,000 B stored, 12,800 distinct elements
    assert extra_bytes(_attention_call(stored_out=30000)) is None
    # the same program storing its own elements twice is a round trip through the output
    assert extra_bytes(_attention_call(stored_out=51200, restored=25600))["extra"] == 25600


# -- 6. the cause named is the cause ------------------------------------------------------------------------------------

class _Region(SimpleNamespace):
    pass


def _access(shape, stride, tile_rows, tile_cols, row0, col0, step_r, step_c, mask=None, elsize=2, start=1 << 20):
    t = torch.empty_strided(shape, stride, dtype=torch.float16)
    region = _Region(tensor=t, start=start, end=start + t.numel() * elsize, elsize=elsize)
    i = np.arange(tile_rows)[:, None]
    j = np.arange(tile_cols)[None, :]
    addrs = (start + elsize * (row0 * stride[0] + col0 * stride[1] + i * step_r + j * step_c)).astype(np.uint64)
    m = np.ones(addrs.shape, dtype=bool) if mask is None else np.broadcast_to(mask, addrs.shape)
    bad = m & ((addrs < region.start) | (addrs >= region.end))
    return describe(addrs, m, bad, elsize, region)


def _violation(access, unmasked=False):
    return {"side": "after", "numel": 10**6, "first_elem": 10**6, "last_elem": 10**6 + 10, "inside_no_tensor": False,
            "tensor": "input a", "kind": "load", "lanes": 1, "program": 0, "unmasked": unmasked, "access": access}


def test_a_missing_k_tail_mask_names_k():
    # a (127, 65) tile (BLOCK_M 128, BLOCK_K 64) at the second K step, rows masked, K not: K reaches 127
    rows_on = (np.arange(128) < 127)[:, None]
    acc = _access((127, 65), (65, 1), 128, 64, 0, 64, 65, 1, mask=rows_on)
    k = next(a for a in acc["axes"] if a["dim"] == 1)
    assert (k["first"], k["last"], k["size"], k["bounded"]) == (64, 127, 65, False)
    v = _violation(acc)
    assert mask_axis(v)["dim"] == 1
    assert out_of_bounds_category(v, [], {"index_category": "indexing"}) == "mask"


def test_an_unmasked_store_running_a_tile_past_the_end_is_mask_not_indexing():
    acc = _access((127, 129), (129, 1), 128, 128, 0, 0, 129, 1)
    v = dict(_violation(acc, unmasked=True), first_elem=16383, last_elem=16383 + 5000, numel=16383)
    assert out_of_bounds_category(v, [{"tile_elems": 128 * 128}], {"index_category": "indexing"}) == "mask"


def test_swapped_strides_with_complete_masks_is_strides():
    # a (37, 129) read with stride_am = 1 and stride_ak = 129: the M axis is masked to 37, the K axis to 129
    mask = (np.arange(128) < 37)[:, None] & (np.arange(64) < 129)[None, :]
    acc = _access((37, 129), (129, 1), 128, 64, 0, 0, 1, 129, mask=mask)
    v = _violation(acc)
    assert swapped_axis(v)["other_dim"] == 0
    assert out_of_bounds_category(v, [], {"index_category": "indexing"}) == "strides"


def test_a_flat_kernel_over_a_2d_tensor_is_not_read_per_dim():
    # Inductor's xindex over a (347, 301) tensor, a block starting mid-row: no per-dim claim
    t = torch.empty(347, 301)
    region = _Region(tensor=t, start=1 << 20, end=(1 << 20) + t.numel() * 4, elsize=4)
    addrs = (region.start + 4 * (101 * 1024 + np.arange(1024))).astype(np.uint64)
    m = np.ones(1024, dtype=bool)
    info = describe(addrs, m, addrs >= region.end, 4, region)
    assert all("last" not in a for a in info["axes"])


def test_the_arrow_goes_to_the_comparison_that_builds_the_mask():
    src = ["@triton.jit", "def k(p, n, B: tl.constexpr):", "    offs = tl.arange(0, B)", "    m = offs <= n",
           "    x = tl.load(p + offs, mask=m)", "    tl.store(p + offs, x, mask=offs < n)"]
    assert mask_source_line(src, 5) == 4
    assert mask_source_line(src, 6) is None  # an inline mask: the access line itself


def test_an_other_that_tl_where_made_harmless_is_not_blamed():
    rules = {"masked_other": (float("-inf"), "other"), "value_category": "wrong-values"}
    blamed = {"category": "other", "wrong": 3, "masked_loads": [{"line": 9, "other": 0.0, "lanes": 5}],
              "detail": {"masked_load": {"line": 9, "other": 0.0}, "identity": float("-inf"), "wrong": 3}}
    unmasked = {"category": "wrong-values", "wrong": 2, "masked_loads": [], "detail": {"wrong": 2}}
    calls = [dict(blamed), unmasked]
    drop_unproven_other(calls, rules)
    assert calls[0]["category"] == "wrong-values" and "masked_load" not in calls[0]["detail"]
    alone = [dict(blamed)]  # nothing says the other= did not matter: it stays the cause
    drop_unproven_other(alone, rules)
    assert alone[0]["category"] == "other"


def test_right_only_on_a_layout_probe_is_strides():
    from grader.judge.diagnose import blame_layout_assumption
    plain = {"size": [100, 40, 257], "category": "wrong-values", "wrong": 3990, "detail": {"wrong": 3990}}
    probe = {"size": [100, 40, 257], "probe": "b = w.t()", "probe_category": "strides", "category": None}
    calls = [plain, probe]
    blame_layout_assumption(calls)
    assert plain["category"] == "strides" and plain["detail"]["layout_only"] == "b = w.t()"
    # the probe failing too says nothing about a layout
    other = [dict(plain, category="wrong-values", detail={}), dict(probe, category="strides")]
    blame_layout_assumption(other)
    assert other[0]["category"] == "wrong-values"


def test_a_mistake_refuted_by_a_probe_it_cannot_pass_is_dropped():
    from grader.judge.diagnose import refute_mistakes
    rules = {"masked_other": (float("-inf"), "other"), "value_category": "wrong-values"}
    neg = {"probe": "all-negative", "probe_category": "other", "returned": "tensor", "launches": [{"kernel": "k"}],
           "wrong": 10, "numel": 10, "masked_loads": [{"line": 9, "other": 0.0, "lanes": 3}],
           "mistake": {"name": "no max", "category": "stability", "refuted_by": ["x30"]},
           "category": "stability", "detail": {}}
    x30 = {"probe": "x30", "category": None}
    calls = [neg, x30]
    refute_mistakes(calls, None, rules)
    assert neg["category"] == "other" and "mistake" not in neg


def test_an_error_as_large_as_the_output_is_not_called_rounding():
    """A few tolerances away is rounding only while the error is small beside the output's own scale (blind round 7:
    a split-KV merge in the wrong exponent base was 36x an fp16 tolerance away and reported as 'rounding')."""
    from grader.reporting.report import close_to_reference

    assert close_to_reference({"error_ratio": 9.4, "max_abs_err": 0.03, "ref_scale": 250.0})  # fp16 accumulator
    assert not close_to_reference({"error_ratio": 36.2, "max_abs_err": 0.17, "ref_scale": 1.4})  # a wrong formula
    assert not close_to_reference({"error_ratio": 80.0, "max_abs_err": 1e-3, "ref_scale": 1.0})  # too many tolerances
    assert close_to_reference({"error_ratio": 2.0})  # a verdict written before the scale was recorded


def test_a_held_fix_points_at_a_line_only_when_one_is_shown():
    from rich.console import Console

    from grader.reporting.report import render

    from grader.run.runner import Verdict

    def shown(line):
        # a close miss: its fix hands over code, so without --show-fix it is held back
        v = Verdict(drill="softmax", file="k.py", device="cpu", passed=False, diagnosis="wrong-values", line=line,
                    source_lines=["x = 1", "y = 2"], detail={"error_ratio": 3.0, "max_abs_err": 1e-4,
                                                             "ref_scale": 1.0, "wrong": 2, "numel": 10})
        console = Console(width=200, record=True)
        console.print(render(v, "en", show_fix=False))
        return console.export_text()

    assert "the line above" not in shown(None)
    assert "the line above" in shown(2)


def test_a_large_output_is_compared_only_with_the_mistakes_already_matched():
    """At CUDA-only sizes (outputs over MISTAKE_MAX_NUMEL) the child compares a wrong output with the known mistakes
    this submission matched at smaller sizes, not with every model (each a float64 computation): on the H200,
    attention without 1/sqrt(D) was named at every size but the two CUDA-only ones, which read `wrong-values` and
    `also seen: wrong-values`. Here: the filter that call uses."""
    import torch

    import drills
    from grader.run.child import CallRunner

    spec = drills.get_spec("attention")
    runner = CallRunner(spec, lambda q, k, v: None, "cpu", None, None, None)
    inputs = spec.make_inputs((1, 2, 100, 64), torch.Generator().manual_seed(0))
    as64 = [t.double() for t in inputs]
    ref = spec.reference(*as64)
    unscaled = next(m for m in spec.mistakes if m.name == "no 1/sqrt(D) scale")
    out = unscaled.reference(*as64, meta={}).to(torch.float16)
    assert runner.which_mistake(out, inputs, ref, [], None)["name"] == unscaled.name
    assert runner.which_mistake(out, inputs, ref, [], None, only=[unscaled.name])["name"] == unscaled.name
    assert runner.which_mistake(out, inputs, ref, [], None, only=["1/D instead of 1/sqrt(D)"]) is None
    assert runner.which_mistake(out, inputs, ref, [], None, only=[]) is None
