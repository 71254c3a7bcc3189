"""Evidence -> diagnosis. Pure functions over the plain data that `evaluate` collects, so they are easy to test.

The vocabulary (JSON `diagnosis`) is fixed: see CATEGORIES. Evidence maps to holes: lanes or writes past the end
-> mask; full tiles right but the tail unwritten and a grid too small -> grid; tiles duplicated or mostly
unwritten -> offsets.
"""
from __future__ import annotations

import json

from collections import Counter

from grader.watch.access import out_of_range

# How far off the wrong values are (evaluate_output): what the report reads to tell rounding from a wrong formula
ERROR_FIGURES = ("error_ratio", "max_abs_err", "ref_scale")

# Ordered: when one call shows several problems, the earlier category is the cause to fix first.
CATEGORIES = (
    "hole", "internal", "not-checked", "error", "timeout", "crash", "torch-fallback", "no-kernel", "fusion", "dtype", "shape",
    "input-mutated", "mask", "grid", "offsets", "indexing", "strides", "k-loop", "epilogue", "scale", "causal",
    "rescale", "reduction", "stability", "other", "persistent", "autotune", "xblock", "warps", "unwritten",
    "wrong-values", "stale-output", "too-slow", "impossible-time",
    # training drills (grader/families/training.py): the forward's statistics, then the backward's gradients
    "autograd", "variance", "cancellation", "dx", "dwdb", "race",
    # a fused loss: the target logit, ignore_index, the gradient's scale, a (T, V) buffer
    "gather", "ignore-index", "grad-scale", "gradient", "memory",
)
# These say the submission as a whole is broken; one call showing them decides the verdict. A heuristic that breaks a
# device's limits (xblock, warps: grader/families/limits.py) comes before the kernel error it causes (tl.arange of a
# non-power-of-two block).
DECISIVE = ("hole", "internal", "xblock", "warps", "error", "timeout", "crash", "torch-fallback", "no-kernel", "fusion", "dtype",
            "shape", "input-mutated")


def coverage(launches: list[dict]) -> int | None:
    """Elements the biggest launch can cover with one tile per program (None: unknown)."""
    best = None
    for l in launches:
        if l.get("programs") is not None and l.get("block"):
            c = l["programs"] * l["block"]
            best = c if best is None else max(best, c)
    return best


SIDE_PER_ROW = 2  # a side output may hold this many values per row of the output (logsumexp; a max and a sum)
SIDE_ROUND = 128  # ... with the row count rounded up to this (FlashAttention's lse is (B, H, roundup(S, 128)))


def side_output(row: dict, out: dict | None) -> bool:
    """A small per-row side output (a logsumexp, a row's mean and rstd): O(rows), where the large intermediate a
    fused kernel must keep in registers ((M, N) before the epilogue, the (S, S) scores) is O(rows x columns) or more.
    At most SIDE_PER_ROW values per row, rows counted up to a multiple of SIDE_ROUND along the row dim (kernels
    round their per-row buffers to the block). A 1-D output has no rows: nothing beside it is allowed (x + y)."""
    if out is None or row.get("output") or row.get("kind") == "input" or len(out["shape"]) < 2:
        return False
    *outer, rows_dim, _ = out["shape"]
    rows = -(-rows_dim // SIDE_ROUND) * SIDE_ROUND
    for n in outer:
        rows *= n
    # What was stored counts, not the buffer's size: a per-row scratch stored and loaded back every key block (Tri
    # Dao's TMP workaround) stores rows x blocks values, a round trip that grows with S like the scores do.
    lanes = row["bytes"] // max(row.get("elsize") or 1, 1)
    return row["numel"] <= SIDE_PER_ROW * rows and lanes <= SIDE_PER_ROW * rows and lanes <= row["distinct"]


def store_breakdown(ev: dict) -> dict:
    """The call's stores split by where they went: the output's distinct elements, bytes one program stored again
    over its own output elements (a round trip through the output), per-row side outputs (allowed), and every other
    tensor stored into (named, with its shape)."""
    stores = ev.get("stores") or []
    out = next((r for r in stores if r.get("output")), None)
    side = [r for r in stores if side_output(r, out)]
    into = [r for r in stores if not r.get("output") and r.get("kind") != "input" and r not in side]
    brief = lambda r: {k: r.get(k) for k in ("tensor", "shape", "dtype", "bytes", "distinct", "elsize")}  # noqa: E731
    return {"output_bytes": out["distinct"] * out["elsize"] if out else 0,
            "restored": (out or {}).get("restored_bytes", 0),
            "side": [brief(r) for r in side], "into": [brief(r) for r in into],
            "side_bytes": sum(r["bytes"] for r in side), "into_bytes": sum(r["bytes"] for r in into)}


def fused_loaded(moved: dict, model: dict) -> int:
    """The loaded bytes a byte model judges: distinct per launch and site against a `fused` model, else as issued."""
    if model.get("fused") is not None and moved.get("loaded_distinct") is not None:
        return int(moved["loaded_distinct"])
    return int(moved["loaded"])


def extra_bytes(ev: dict) -> dict | None:
    """Interpreter byte count above the drill's fused model -> the numbers; None when within it (or unknown).

    The count is exact (active lanes x element size; masked-off lanes move nothing); against a `fused` model the loads
    count each address once per launch and access site (`loaded_distinct`: clamped tail lanes re-reading element 0
    are not a round trip; a second pass over the input at another line is). With the call's stores by tensor
    (evaluate.stores_by_tensor) the proof is asymptotic, as a fused kernel is defined: what must not go to memory is
    the large intermediate; small per-row side outputs (a logsumexp) are allowed and named, and an output element
    re-stored by another program (edge tiles writing the same values) is the output, not an intermediate.
    """
    model, moved = ev.get("bytes_model"), ev.get("bytes")
    if not model or not moved:
        return None
    loaded = fused_loaded(moved, model)
    total = loaded + int(moved["stored"])
    detail = {"bytes_moved": total, "loaded": loaded, "stored": moved["stored"], "bytes_model": model}
    parts = store_breakdown(ev) if ev.get("stores") is not None else None
    if parts is not None:
        detail.update(parts)
    # Tiled kernels re-read their inputs by design (a GEMM reads A once per column of tiles): for them the model
    # bounds only what is stored, which is the output alone when nothing round-trips through memory.
    if model.get("stored") is not None:
        if parts is None:
            extra = int(moved["stored"]) - model["stored"]
        else:
            extra = parts["into_bytes"] + parts["restored"]
        return {**detail, "extra": extra, "stored_only": True} if extra > 0 else None
    if model.get("fused") is not None:
        allowed = model["fused"] + (parts["side_bytes"] if parts else 0)
        if total > allowed:
            if parts is not None and ev.get("input_bytes") is not None:
                detail["reloaded"] = max(0, loaded - int(ev["input_bytes"]))
            return {**detail, "extra": total - model["fused"]}
    return None


def wrong_other(ev: dict, masked_other) -> dict | None:
    """A load whose masked-off lanes read something other than the reduction's identity (interpreter evidence):
    the explanation of a values failure when the spec names the identity, e.g. (-inf, "other") for a row max. Not on
    a probe that names another cause (x30 -> stability: a row min subtracted reads +inf in its masked lanes)."""
    if not masked_other or ev.get("probe_category") not in (None, masked_other[1]):
        return None
    identity = masked_other[0]
    for load in ev.get("masked_loads", []):
        if load["other"] != identity:
            return load
    return None


def tail_overrun(v: dict, launches: list[dict]) -> bool:
    """Lanes that continue a tensor past its end (the first bad element is the one right after the last) by less
    than one tile: a missing edge mask."""
    tile = max((l.get("tile_elems") or 0 for l in launches), default=0) or 1024
    past_end = v["side"] in ("after", "mixed") and not v.get("inside_no_tensor")
    return past_end and v["first_elem"] <= v["numel"] and v.get("last_elem", v["first_elem"]) < v["numel"] + tile


def swapped_axis(v: dict) -> dict | None:
    """A tile axis whose mask stops at the size of one dim of the tensor while its pointer steps by another dim's
    stride (stride_am passed as stride_ak): the strides and the mask disagree. Interpreter evidence (grader.watch.access)."""
    info = v.get("access") or {}
    sizes = info.get("tensor_shape") or []
    for row in info.get("axes", []):
        if not row.get("bounded") or "last" not in row:
            continue
        extent = row["last"] + 1  # where the mask stops this axis
        other = [d for d, n in enumerate(sizes) if d != row["dim"] and n == extent and n != row["size"]]
        if other:
            return {**row, "extent": extent, "other_dim": other[0], "other_size": sizes[other[0]]}
    return None


def mask_axis(v: dict) -> dict | None:
    """The tile axis whose active lanes run past the end of the dim it walks while the mask does not stop them: no
    mask= at all, no term for that axis, or a bound one too far (`<=`). Interpreter evidence."""
    row = out_of_range(v.get("access"))
    if row is None or row["first"] < 0:
        return None
    if v.get("unmasked") or not row.get("bounded") or row["last"] == row["size"]:
        return row
    return None


def out_of_bounds_category(v: dict, launches: list[dict], rules: dict, values_right: bool = False) -> str:
    """A tail overrun is the mask. An address before the start, with a gap after the end, far away or in no tensor
    comes from the index arithmetic: offsets (1-D) or indexing (2-D), or the drill's own word for that input (bias ->
    epilogue), unless the values came out right from a tail overrun there: then only its edge mask is missing.
    Where the access's tile is known per axis (grader.watch.access) that evidence decides first: a mask bounded by
    one dim's size on an axis that walks another dim is `strides`; an axis that runs past its dim's end with no mask
    term stopping it is `mask`, however far past the end the lanes land."""
    named = (rules.get("input_categories") or {}).get(v.get("tensor", "").removeprefix("input "))
    if named and not v.get("inside_no_tensor") and not (values_right and tail_overrun(v, launches)):
        return named
    if not v.get("inside_no_tensor") and out_of_range(v.get("access")) is not None:
        if swapped_axis(v):
            return rules.get("stride_category") or "strides"
        if mask_axis(v):
            return "mask"
    if tail_overrun(v, launches):
        return "mask"
    if v.get("inside_no_tensor") and v["side"] == "after" and v["first_elem"] == v["numel"]:
        # A whole access starting right after the end: a program with no data at all (a grid or a row bound
        # larger than the tensor, e.g. x.numel() rows), not a tail tile missing its mask.
        return "grid"
    return rules.get("index_category") or "offsets"


def first_violation(violations: list[dict]) -> dict:
    """The violation that explains the call: lanes past the end of a tensor starting closest to its end (a
    missing row mask in a 2-D tile shows a gap in every column tile but the first), else the first recorded."""
    after = [v for v in violations if v["side"] in ("after", "mixed") and not v.get("inside_no_tensor")]
    return min(after, key=lambda v: v["first_elem"] - v["numel"]) if after else violations[0]


def multi_axis_grid(launches: list[dict]) -> bool:
    """A launch with a grid of two or more axes (even if one of them is 1 at this size)."""
    return any(len(l.get("grid") or []) >= 2 for l in launches)


def grid_not_from_meta(launches: list[dict], numel: int) -> str | None:
    """An autotuned launch whose program count is not cdiv(n, the chosen BLOCK): the grid ignores meta."""
    for l in launches:
        if l.get("programs") is not None and l.get("block") and l["programs"] != -(-numel // l["block"]):
            return "grid-not-from-meta"
    return None


def classify(ev: dict, max_launches: int | None = None, rules: dict | None = None) -> tuple[str | None, dict]:
    """One call's evidence -> (category or None for a pass, detail for the message).

    `rules` (from the drill's spec): value_category (what a values failure means), max_programs (a cap on programs
    per launch; each output element stored once), autotune (launches.autotune_evidence), refuse_launch (a family's
    launch rule: (ev, rules) -> (category, detail) or None, asked before any other launch problem). A values failure
    on a probe input set (ev["probe_category"]) is blamed on the probe's category."""
    rules = rules or {}
    if ev.get("exception"):
        exc = ev["exception"]
        return ("crash" if exc.get("cuda_fault") else "error"), {"exception": exc}
    if ev.get("returned") != "tensor":
        return "error", {"returned": ev.get("returned")}
    if ev.get("torch_ops"):
        return "torch-fallback", {"ops": ev["torch_ops"][:5]}
    launches = ev.get("launches", [])
    if not launches and ev.get("stale"):  # the second call handed back the first call's result, launching nothing
        return "stale-output", {"aliased": True, "no_launch": True}
    if not launches:
        return "no-kernel", {}
    refuse = rules.get("refuse_launch")  # a family's launch rule (a device's limits), from its launch_rules hook
    refused = refuse(ev, rules) if refuse is not None else None
    if refused:
        return refused
    if max_launches is not None and len(launches) > max_launches:
        return "fusion", {"launches": len(launches), "expected": max_launches,
                          "kernels": [l["kernel"] for l in launches]}
    if not ev.get("dtype_ok", True):
        return "dtype", {"expected": ev["expected_dtype"], "got": ev["got_dtype"]}
    if not ev.get("shape_ok", True) or not ev.get("device_ok", True) or not ev.get("layout_ok", True):
        return "shape", {"expected": ev.get("expected_shape"), "got": ev.get("got_shape"),
                         "device": ev.get("got_device"), "no_device": ev.get("no_device"),
                         "strides": ev.get("got_strides"), "expected_strides": ev.get("expected_strides"),
                         "layout_rule": ev.get("layout_rule")}
    if ev.get("violations"):
        # An access whose mask and strides come from different dims explains the others (they are its symptoms).
        v = next((x for x in ev["violations"] if swapped_axis(x) and out_of_range(x.get("access"))), None) or \
            first_violation(ev["violations"])
        values_right = not ev.get("wrong") and not ev.get("unwritten")
        detail = {"violation": v, "out_shape": ev.get("expected_shape")}
        if ev.get("mistake") and not v.get("inside_no_tensor"):
            # The output is exactly what a known mistake computes, its out-of-bounds reads included (they read
            # other=): that mistake is the cause (swapped strides read past the end of a non-square tensor).
            return ev["mistake"]["category"], {**detail, "mistake": ev["mistake"], "wrong": ev.get("wrong"),
                                               "numel": ev.get("numel"), "probe": ev.get("probe")}
        return out_of_bounds_category(v, launches, rules, values_right), detail
    for g in ev.get("guard_hits", []):  # CUDA: the guard band says how far past the end the writes went
        as_lanes = {"side": "after" if g["after"] else "before", "numel": g["numel"],
                    "first_elem": g["numel"] + (g.get("first_after") or 0),
                    "last_elem": g["numel"] + (g.get("last_after") or 0)}
        return out_of_bounds_category(as_lanes, launches, rules), {"guard": g}
    if ev.get("inputs_mutated"):
        return "input-mutated", {"inputs": ev["inputs_mutated"], "returned_input": ev.get("returned_input")}
    if ev.get("returned_input") and ev.get("wrong"):  # the kernel's output went elsewhere
        return "wrong-values", {"returned_input": ev["returned_input"], "wrong": ev["wrong"], "numel": ev.get("numel")}
    extra = extra_bytes(ev)
    if extra:
        return "fusion", {**extra, "launches": len(launches), "kernels": [l["kernel"] for l in launches]}
    numel = ev.get("numel", 0)
    cap = rules.get("max_programs")
    if cap is not None:
        over = [l for l in launches if (l.get("programs") or 0) > cap]
        if over:
            block = over[0].get("block")
            return "persistent", {"programs": over[0]["programs"], "cap": cap, "numel": numel, "block": block,
                                  "tiles": -(-numel // block) if block else None}
    tiles = ev.get("tiles", {}).get("status", "")
    if ev.get("unwritten") and any(l.get("programs") == 0 for l in launches):
        # A launch of zero programs (cdiv of a small n by a large BLOCK rounded down, a cap with no max(1, ...)).
        return "grid", {"unwritten": ev["unwritten"], "numel": numel, "programs": 0, "coverage": 0,
                        "block": (ev.get("tiles") or {}).get("block")}
    if ev.get("unwritten") and (ev.get("mistake") or {}).get("footprint"):
        # The elements written, and how often, are exactly those of a known mistake's output geometry.
        return ev["mistake"]["category"], {"unwritten": ev["unwritten"], "numel": numel, "mistake": ev["mistake"],
                                           "wrong": ev.get("wrong"), "probe": ev.get("probe")}
    if ev.get("unwritten"):
        cov = coverage(launches)
        issued = ev.get("issued_lanes")
        detail = {"unwritten": ev["unwritten"], "numel": numel, "coverage": issued or cov,
                  "programs": max((l.get("programs") or 0) for l in launches), "block": ev["tiles"]["block"]}
        if cap is not None:  # a capped grid loops over tiles: one tile per program says nothing here
            return "persistent", {**detail, "cap": cap, "loop_misses": True}
        # Lanes evidence first (interpreter): fewer store lanes issued than elements can never cover them all.
        if issued is not None and issued < numel:
            return "grid", {**detail, "issued": True}
        if ev.get("duplicates"):
            return "offsets", {**detail, "duplicates": ev["duplicates"]}
        # Every unwritten element was pointed at by a store lane the kernel's mask switched off: the mask is too
        # strict. (If some were never addressed at all, tiles are missing: in 2-D a masked lane past a row's end
        # also points into the next row, so a few addressed ones prove nothing.)
        if (ev.get("unwritten_masked") and not ev.get("unwritten_unaddressed")) or ev.get("stores_in_place"):
            return "mask", {**detail, "too_strict": True}
        if ev.get("unwritten_unaddressed") and multi_axis_grid(launches) and (ev.get("work") or {}).get("idle"):
            # A 2-D grid whose axes do not match the tiles (swapped, or sized for the other dim): some programs
            # store nothing while tiles no program addresses stay unwritten.
            return "grid", {**detail, "axes": [l.get("grid") for l in launches]}
        if issued is None and cov is not None and cov < numel:  # CUDA: one tile per program, BLOCK-sized
            return "grid", detail
        bad_tiles = sum(1 for c in tiles if c != "o")
        # Whole tiles unwritten by a launch with enough programs: in 1-D the offsets put tiles in the wrong place; a
        # 2-D kernel's program-id -> (row tile, column tile) mapping skipped some (a GROUP_M swizzle without min()).
        misplaced = ("grid", {**detail, "mapping": True}) if rules.get("index_category") == "indexing" else \
            ("offsets", detail)
        if tiles and bad_tiles > len(tiles) / 2:
            return misplaced
        if tiles and "." not in tiles[:-1] and tiles.endswith("."):
            return "mask", {**detail, "too_strict": True}
        if issued is not None:
            return misplaced
        return "unwritten", detail
    if ev.get("wrong"):
        if ev.get("duplicates") and not (ev.get("mistake") or {}).get("footprint"):
            return "offsets", {"duplicates": ev["duplicates"], "wrong": ev["wrong"]}
        if ev.get("mistake"):  # the output is exactly what a known mistake computes
            return ev["mistake"]["category"], {"wrong": ev["wrong"], "numel": numel, "mistake": ev["mistake"],
                                               "probe": ev.get("probe")}
        suspect = wrong_other(ev, rules.get("masked_other"))
        if suspect:
            return rules["masked_other"][1], {"wrong": ev["wrong"], "numel": numel, "probe": ev.get("probe"),
                                              "masked_load": suspect, "identity": rules["masked_other"][0]}
        category = ev.get("probe_category") or rules.get("value_category") or "wrong-values"
        return category, {"wrong": ev["wrong"], "numel": numel, "probe": ev.get("probe"),
                          **{k: ev.get(k) for k in ERROR_FIGURES}}
    if cap is not None and ev.get("duplicates"):  # right values, but some tiles stored more than once
        return "persistent", {"duplicates": ev["duplicates"], "numel": numel, "cap": cap}
    waste = wasted_work(ev, cap, rules.get("idle_factor") or IDLE_FACTOR)
    if waste:
        tune = rules.get("autotune")
        if tune is not None and waste["wasted"] == "idle":  # idle because the grid ignores the tuned BLOCK
            problem = grid_not_from_meta(launches, numel)
            if problem:
                return "autotune", {**tune, "problem": problem}
        return "grid", waste
    if ev.get("duplicates") and not ev.get("duplicates_at_edge"):
        # right values, but tiles overlap: programs store each other's elements. Duplicates only on the last
        # row / column are edge programs with clamped offsets re-storing the same values: not a fault.
        return "offsets", {"duplicates": ev["duplicates"], "numel": numel, "overlap": True}
    if ev.get("stale"):
        return "stale-output", {"aliased": ev.get("aliased", False)}
    tune = rules.get("autotune")
    if tune is not None:
        problem = tune.get("problem")
        if problem is None and tune.get("keys"):
            meta = next((l.get("meta", {}) for l in launches if l.get("meta")), {})
            if meta and not any(isinstance(meta.get(k), int) and not isinstance(meta.get(k), bool)
                                for k in tune["keys"]):
                problem = "key-not-size"
        if problem is None:
            problem = grid_not_from_meta(launches, numel)
        if problem:
            return "autotune", {**tune, "problem": problem}
    return None, {}


IDLE_FACTOR = 4  # idle programs beyond this many times the working ones (and beyond a small grid) are waste
# Where the learner writes the grid (a `grid` hole), the grid is the lesson: one idle program per working one
# (2 x cdiv) is already the mistake. Elsewhere idle programs can be the design (a split-KV launch's empty splits).
GRID_HOLE_IDLE_FACTOR = 0.5


def wasted_work(ev: dict, cap: int | None, idle_factor: float = IDLE_FACTOR) -> dict | None:
    """Right values from a grid far larger than the work: programs that repeat another's tile exactly, programs that
    store nothing, or tiles so overlapping that the launch covers several times the output. Interpreter evidence."""
    work, numel = ev.get("work"), ev.get("numel") or 0
    if not work:
        return None
    detail = {"wasted": None, "programs": work["programs"], "working": work["working"], "idle": work["idle"],
              "repeats": work["repeats"], "distinct": work["distinct"], "numel": numel, "kernel": work["kernel"]}
    if work["repeats"]:
        return {**detail, "wasted": "repeats"}
    if work["idle"] > idle_factor * max(work["working"], 8) and (cap is None or work["programs"] > cap):
        return {**detail, "wasted": "idle"}
    tiles = max((l.get("programs") or 0) * (l.get("tile_elems") or l.get("block") or 0)
                for l in ev.get("launches", [])) if ev.get("launches") else 0
    if ev.get("duplicates") and not ev.get("duplicates_at_edge") and tiles >= 2 * max(numel, 1):
        return {**detail, "wasted": "overlap", "duplicates": ev["duplicates"], "covered": tiles}
    return None


def relabel_probes(calls: list[dict]) -> None:
    """A probe's category (all-negative rows -> `other`, x30 -> `stability`) names a failure seen ONLY on the
    probe's inputs. When the ordinary sizes fail on values too, the probe failed for that reason: label it so."""
    plain = next((c for c in calls if not c.get("probe") and c.get("wrong") and c["category"]
                  and not memory_evidence(c.get("detail") or {})), None)
    if plain is None:
        return
    for c in calls:
        if c.get("probe") and c["category"] == c.get("probe_category") and c["category"] != plain["category"]:
            c["category"] = plain["category"]
            c["detail"] = dict(c.get("detail") or {}, probe_relabelled=True)


def refute_mistakes(calls: list[dict], max_launches, rules: dict) -> None:
    """A call's output matched a named mistake, but a probe that mistake cannot pass (Mistake.refuted_by) passed:
    the match was a coincidence (two mistakes that both give NaN there), so the call is classified without it."""
    passed = {c.get("probe") for c in calls if c.get("probe") and c.get("category") is None}
    for c in calls:
        m = c.get("mistake")
        if m and set(m.get("refuted_by") or ()) & passed:
            c["mistake_refuted"] = c.pop("mistake")
            c["category"], c["detail"] = classify(c, max_launches, rules)


def prefer_consistent_mistakes(calls: list[dict], max_launches, rules: dict) -> None:
    """A call's output can match two named mistakes at once where they coincide (every k in group 0 when
    K <= 2 x group_size: "one scale for all groups" and "the group read from the packed row"). Each such call names
    the one of its matches that the most calls of the grade match (ties: the drill's order), so a size where the
    two coincide does not name the one the other sizes rule out. A call only ever switches to a mistake it matched
    itself. Grade-wide."""
    def matched(c) -> list[dict]:
        m = c.get("mistake")
        return [m, *m.get("alternatives", ())] if m and not m.get("footprint") else []

    counts = Counter(m["name"] for c in calls for m in matched(c))
    for c in calls:
        found = matched(c)
        if len(found) < 2:
            continue
        best = min(range(len(found)), key=lambda i: (-counts[found[i]["name"]], i))
        if best:
            c["mistake"] = {**found[best], "alternatives": [m for i, m in enumerate(found) if i != best]}
            c["category"], c["detail"] = classify(c, max_launches, rules)


def drop_unproven_other(calls: list[dict], rules: dict) -> None:
    """A masked load whose `other=` is not the reduction's identity is the cause only if the failures depend on masked
    lanes. When a call whose loads masked nothing off failed on values too (a row length that is a power of two), or
    the probe made for it (all-negative rows) passed, the `other=` did not matter (a tl.where after the load, say):
    the calls blamed on it get the drill's plain values category. Grade-wide, like relabel_probes."""
    masked_other = rules.get("masked_other")
    if not masked_other:
        return
    label = masked_other[1]
    blamed = [c for c in calls if c.get("category") == label and (c.get("detail") or {}).get("masked_load")]
    if not blamed:
        return
    unmasked_fail = any(c.get("category") and c.get("wrong") and not c.get("masked_loads") and c not in blamed
                        and not memory_evidence(c.get("detail") or {}) for c in calls)
    probe_passed = any(c.get("probe_category") == label and c.get("category") is None for c in calls)
    if not (unmasked_fail or probe_passed):
        return
    for c in blamed:
        detail = {k: v for k, v in (c.get("detail") or {}).items() if k not in ("masked_load", "identity")}
        c["category"] = rules.get("value_category") or "wrong-values"
        c["detail"] = {**detail, "other_harmless": True,
                       **{k: c.get(k) for k in ERROR_FIGURES}}


def blame_probe_layouts(calls: list[dict]) -> None:
    """An out-of-bounds access seen only on a probe's inputs, at a size whose ordinary inputs passed (b = w.t() at
    100x40x257): the probe's category names it (a kernel that assumes a contiguous layout reads past the end of a
    transposed view: `strides`, not a missing mask). Runs after relabel_probes; no effect when an ordinary call
    failed."""
    if any(not c.get("probe") and c.get("category") for c in calls):
        return
    passed = {json.dumps(c.get("size")) for c in calls if not c.get("probe") and c.get("category") is None}
    for c in calls:
        if c.get("probe") and c.get("category") and c.get("probe_category") and c["category"] != c["probe_category"] \
                and memory_evidence(c.get("detail") or {}) and json.dumps(c.get("size")) in passed:
            c["category"] = c["probe_category"]
            c["detail"] = dict(c["detail"], probe=c["probe"], probe_only=True)


def blame_layout_assumption(calls: list[dict], stride_category: str = "strides") -> None:
    """A layout probe (b = w.t(): its category is the drill's stride word) that passes at a size where the plain,
    contiguous inputs fail on values: the kernel is right only for the probe's layout, so it assumes one instead of
    reading the strides (stride_bk taken as 1). The plain values failures are relabelled with that probe named.
    Grade-wide; runs after blame_probe_layouts."""
    passed = {json.dumps(c.get("size")): c["probe"] for c in calls
              if c.get("probe") and c.get("probe_category") == stride_category and c.get("category") is None}
    if not passed:
        return
    plain_fail = [c for c in calls if (not c.get("probe") or (c.get("detail") or {}).get("probe_relabelled"))
                  and c.get("category") and c.get("wrong")
                  and not c.get("unwritten") and not memory_evidence(c.get("detail") or {})
                  and c["category"] not in DECISIVE and not (c.get("detail") or {}).get("mistake")]
    if not any(json.dumps(c.get("size")) in passed for c in plain_fail):
        return
    probe = next(iter(passed.values()))
    for c in plain_fail:
        c["category"] = stride_category
        c["detail"] = dict(c.get("detail") or {}, layout_only=probe)


def key_never_changes(calls: list[dict], rules: dict) -> dict | None:
    """An autotune key whose values are the same at every size (a stride that is always 1, a constant): the tuner
    would never tune again for a new problem size. Needs calls at two or more sizes to say so."""
    tune = rules.get("autotune") or {}
    keys = tune.get("keys") or []
    if not keys or tune.get("problem"):
        return None
    seen: dict = {}
    for c in calls:
        meta = next((l.get("meta") for l in c.get("launches", []) if l.get("meta")), None)
        if meta is None or c.get("numel") is None:
            continue
        seen.setdefault(c["numel"], set()).add(tuple(meta.get(k) for k in keys))
    values = set().union(*seen.values()) if seen else set()
    if len(seen) >= 2 and len(values) == 1:
        return {**tune, "problem": "key-constant", "key_values": dict(zip(keys, next(iter(values)))),
                "sizes": sorted(seen)}
    return None


def overall(categories: list[str], memory_categories: list[str] = ()) -> str | None:
    """One diagnosis from the failing calls: a decisive category wins; then an out-of-bounds access seen lane by lane
    or in a guard band (`memory_categories`: such evidence is proof, while values can differ for many reasons, e.g.
    on CUDA, where an unmasked read returns a neighbour's data); otherwise the most frequent, ties by order."""
    failing = [c for c in categories if c]
    if not failing:
        return None
    for c in DECISIVE:
        if c in failing:
            return c
    pool = [c for c in memory_categories if c] or failing
    counts = Counter(pool)
    return sorted(counts, key=lambda c: (-counts[c], CATEGORIES.index(c)))[0]


def memory_evidence(detail: dict) -> bool:
    """The call's category rests on an out-of-bounds access (interpreter lanes or a CUDA guard band)."""
    return bool(detail.get("violation") or detail.get("guard"))
