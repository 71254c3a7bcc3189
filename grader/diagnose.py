"""Evidence -> diagnosis. Pure functions over the plain data that `evaluate` collects, so they are easy to test.

The vocabulary (JSON `diagnosis`) is fixed: see CATEGORIES. Evidence maps to holes: lanes or writes past the end
-> mask; full tiles right but the tail unwritten and a grid too small -> grid; tiles duplicated or mostly
unwritten -> offsets.
"""
from __future__ import annotations

from collections import Counter

from . import limits

# Ordered: when one call shows several problems, the earlier category is the cause to fix first.
CATEGORIES = (
    "hole", "error", "timeout", "crash", "torch-fallback", "no-kernel", "fusion", "dtype", "shape",
    "input-mutated", "mask", "grid", "offsets", "indexing", "reduction", "stability", "other", "persistent",
    "autotune", "xblock", "warps", "unwritten", "wrong-values", "stale-output", "too-slow", "impossible-time",
)
# These say the submission as a whole is broken; one call showing them decides the verdict. A heuristic that breaks a
# device's limits (xblock, warps: grader/limits.py) comes before the kernel error it causes (tl.arange of a
# non-power-of-two block).
DECISIVE = ("hole", "xblock", "warps", "error", "timeout", "crash", "torch-fallback", "no-kernel", "fusion", "dtype",
            "shape", "input-mutated")


def coverage(launches: list[dict]) -> int | None:
    """Elements the biggest launch can cover with one tile per program (None: unknown)."""
    best = None
    for l in launches:
        if l.get("programs") is not None and l.get("block"):
            c = l["programs"] * l["block"]
            best = c if best is None else max(best, c)
    return best


def extra_bytes(ev: dict) -> dict | None:
    """Interpreter byte count above the drill's fused model -> the numbers; None when within it (or unknown).

    The count is exact (active lanes x element size; masked-off lanes move nothing), so no slack: any byte above
    the model is a value that went to memory and came back, or an input read twice.
    """
    model, moved = ev.get("bytes_model"), ev.get("bytes")
    if not model or not moved or model.get("fused") is None:
        return None
    total = int(moved["loaded"]) + int(moved["stored"])
    if total <= model["fused"]:
        return None
    return {"bytes_moved": total, "loaded": moved["loaded"], "stored": moved["stored"], "bytes_model": model,
            "extra": total - model["fused"]}


def wrong_other(ev: dict, masked_other) -> dict | None:
    """A load whose masked-off lanes read something other than the reduction's identity (interpreter evidence):
    the explanation of a values failure when the spec names the identity, e.g. (-inf, "other") for a row max."""
    if not masked_other:
        return None
    identity = masked_other[0]
    for load in ev.get("masked_loads", []):
        if load["other"] != identity:
            return load
    return None


def out_of_bounds_category(v: dict, launches: list[dict], rules: dict) -> str:
    """A tail overrun (within one tile past the end) is the mask; an address far away, before the start or in no
    tensor at all comes from the index arithmetic: offsets, or the drill's own name for it (transpose: indexing)."""
    tile = max((l.get("tile_elems") or 0 for l in launches), default=0) or 1024
    tail = v["side"] in ("after", "mixed") and not v.get("inside_no_tensor") and \
        v.get("last_elem", v["first_elem"]) < v["numel"] + tile
    if tail:
        return "mask"
    named = rules.get("value_category")
    return named if named and named != "wrong-values" else "offsets"


def grid_not_from_meta(launches: list[dict], numel: int) -> str | None:
    """An autotuned launch whose program count is not cdiv(n, the chosen BLOCK): the grid ignores meta."""
    for l in launches:
        if l.get("programs") is not None and l.get("block") and l["programs"] != -(-numel // l["block"]):
            return "grid-not-from-meta"
    return None


def classify(ev: dict, max_launches: int | None = None, rules: dict | None = None) -> tuple[str | None, dict]:
    """One call's evidence -> (category or None for a pass, detail for the message).

    `rules` (from the drill's spec): value_category (what a values failure means), max_programs (a cap on programs
    per launch; each output element stored once), autotune (launches.autotune_evidence). A values failure on a
    probe input set (ev["probe_category"]) is blamed on the probe's category."""
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
    refused = limits.refused_launch(ev, rules)  # a device with launch limits (grader/limits.py)
    if refused:
        return refused
    if max_launches is not None and len(launches) > max_launches:
        return "fusion", {"launches": len(launches), "expected": max_launches,
                          "kernels": [l["kernel"] for l in launches]}
    if not ev.get("dtype_ok", True):
        return "dtype", {"expected": ev["expected_dtype"], "got": ev["got_dtype"]}
    if not ev.get("shape_ok", True) or not ev.get("device_ok", True):
        return "shape", {"expected": ev.get("expected_shape"), "got": ev.get("got_shape"),
                         "device": ev.get("got_device")}
    for v in ev.get("violations", []):
        return out_of_bounds_category(v, launches, rules), {"violation": v}
    for g in ev.get("guard_hits", []):  # CUDA: the guard band says how far past the end the writes went
        as_lanes = {"side": "after" if g["after"] else "before", "numel": g["numel"],
                    "first_elem": g["numel"] + (g.get("first_after") or 0),
                    "last_elem": g["numel"] + (g.get("last_after") or 0)}
        return out_of_bounds_category(as_lanes, launches, rules), {"guard": g}
    if ev.get("inputs_mutated"):
        return "input-mutated", {"inputs": ev["inputs_mutated"]}
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
    if ev.get("unwritten"):
        cov = coverage(launches)
        detail = {"unwritten": ev["unwritten"], "numel": numel, "coverage": cov,
                  "programs": max((l.get("programs") or 0) for l in launches), "block": ev["tiles"]["block"]}
        if cap is not None:  # a capped grid loops over tiles: one tile per program says nothing here
            return "persistent", {**detail, "cap": cap, "loop_misses": True}
        if cov is not None and cov < numel:
            return "grid", detail
        if ev.get("duplicates"):
            return "offsets", {**detail, "duplicates": ev["duplicates"]}
        if ev.get("stores_in_place"):  # every program stored only inside its own tile: lanes were masked off
            return "mask", {**detail, "too_strict": True}
        bad_tiles = sum(1 for c in tiles if c != "o")
        if tiles and bad_tiles > len(tiles) / 2:
            return "offsets", detail
        if tiles and "." not in tiles[:-1] and tiles.endswith("."):
            return "mask", {**detail, "too_strict": True}
        return "unwritten", detail
    if ev.get("wrong"):
        if ev.get("duplicates"):
            return "offsets", {"duplicates": ev["duplicates"], "wrong": ev["wrong"]}
        suspect = wrong_other(ev, rules.get("masked_other"))
        if suspect:
            return rules["masked_other"][1], {"wrong": ev["wrong"], "numel": numel, "probe": ev.get("probe"),
                                              "masked_load": suspect, "identity": rules["masked_other"][0]}
        category = ev.get("probe_category") or rules.get("value_category") or "wrong-values"
        return category, {"wrong": ev["wrong"], "numel": numel, "probe": ev.get("probe")}
    if cap is not None and ev.get("duplicates"):  # right values, but some tiles stored more than once
        return "persistent", {"duplicates": ev["duplicates"], "numel": numel, "cap": cap}
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
