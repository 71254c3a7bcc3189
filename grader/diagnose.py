"""Evidence -> diagnosis. Pure functions over the plain data that `evaluate` collects, so they are easy to test.

The vocabulary (JSON `diagnosis`) is fixed: see CATEGORIES. Evidence maps to holes: lanes or writes past the end
-> mask; full tiles right but the tail unwritten and a grid too small -> grid; tiles duplicated or mostly
unwritten -> offsets.
"""
from __future__ import annotations

from collections import Counter

# Ordered: when one call shows several problems, the earlier category is the cause to fix first.
CATEGORIES = (
    "hole", "error", "timeout", "crash", "torch-fallback", "no-kernel", "fusion", "dtype", "shape",
    "input-mutated", "mask", "grid", "offsets", "indexing", "reduction", "stability", "other", "persistent",
    "autotune", "unwritten", "wrong-values", "stale-output", "too-slow", "impossible-time",
)
# These say the submission as a whole is broken; one call showing them decides the verdict.
DECISIVE = ("hole", "error", "timeout", "crash", "torch-fallback", "no-kernel", "fusion", "dtype", "shape",
            "input-mutated")


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


def classify(ev: dict, max_launches: int | None = None) -> tuple[str | None, dict]:
    """One call's evidence -> (category or None for a pass, detail for the message)."""
    if ev.get("exception"):
        exc = ev["exception"]
        return ("crash" if exc.get("cuda_fault") else "error"), {"exception": exc}
    if ev.get("returned") != "tensor":
        return "error", {"returned": ev.get("returned")}
    if ev.get("torch_ops"):
        return "torch-fallback", {"ops": ev["torch_ops"][:5]}
    launches = ev.get("launches", [])
    if not launches:
        return "no-kernel", {}
    if max_launches is not None and len(launches) > max_launches:
        return "fusion", {"launches": len(launches), "expected": max_launches,
                          "kernels": [l["kernel"] for l in launches]}
    if not ev.get("dtype_ok", True):
        return "dtype", {"expected": ev["expected_dtype"], "got": ev["got_dtype"]}
    if not ev.get("shape_ok", True) or not ev.get("device_ok", True):
        return "shape", {"expected": ev.get("expected_shape"), "got": ev.get("got_shape"),
                         "device": ev.get("got_device")}
    for v in ev.get("violations", []):
        return ("mask" if v["side"] in ("after", "mixed") else "offsets"), {"violation": v}
    for g in ev.get("guard_hits", []):
        return ("mask" if g["after"] else "offsets"), {"guard": g}
    if ev.get("inputs_mutated"):
        return "input-mutated", {"inputs": ev["inputs_mutated"]}
    extra = extra_bytes(ev)
    if extra:
        return "fusion", {**extra, "launches": len(launches), "kernels": [l["kernel"] for l in launches]}
    numel = ev.get("numel", 0)
    tiles = ev.get("tiles", {}).get("status", "")
    if ev.get("unwritten"):
        cov = coverage(launches)
        detail = {"unwritten": ev["unwritten"], "numel": numel, "coverage": cov,
                  "programs": max((l.get("programs") or 0) for l in launches), "block": ev["tiles"]["block"]}
        if cov is not None and cov < numel:
            return "grid", detail
        if ev.get("duplicates"):
            return "offsets", {**detail, "duplicates": ev["duplicates"]}
        bad_tiles = sum(1 for c in tiles if c != "o")
        if tiles and bad_tiles > len(tiles) / 2:
            return "offsets", detail
        if tiles and "." not in tiles[:-1] and tiles.endswith("."):
            return "mask", {**detail, "too_strict": True}
        return "unwritten", detail
    if ev.get("wrong"):
        if ev.get("duplicates"):
            return "offsets", {"duplicates": ev["duplicates"], "wrong": ev["wrong"]}
        return "wrong-values", {"wrong": ev["wrong"], "numel": numel}
    if ev.get("stale"):
        return "stale-output", {"aliased": ev.get("aliased", False)}
    return None, {}


def overall(categories: list[str]) -> str | None:
    """One diagnosis from the failing calls: a decisive category wins; otherwise the most frequent, ties by order."""
    failing = [c for c in categories if c]
    if not failing:
        return None
    for c in DECISIVE:
        if c in failing:
            return c
    counts = Counter(failing)
    return sorted(counts, key=lambda c: (-counts[c], CATEGORIES.index(c)))[0]
