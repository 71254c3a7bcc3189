"""Fusion evidence for the verdict: launches per call, bytes moved against the drill's byte model (interpreter),
and the speed gate's result (CUDA). Pure functions over the children's plain data.

On for every drill (grader/families/registry.py): every verdict carries its launch count; the bytes proof needs
spec.bytes_proof and spec.byte_model, the speed gate spec.speedup_min.
"""
from __future__ import annotations

from grader.core import catalog
from grader.judge.diagnose import extra_bytes, fused_loaded, store_breakdown


def bytes_call(calls: list[dict]) -> dict | None:
    """The interpreted call with the largest input that has a byte count (the one the bytes proof quotes)."""
    counted = [c for c in calls if c.get("bytes") and c.get("bytes_model")]
    if not counted:
        return None
    return max(counted, key=lambda c: (c["bytes_model"].get("n", 0), c.get("category") is not None))


def summarize(calls: list[dict]) -> dict:
    """JSON fields `launches`, `bytes_moved`, `bytes_model` for the verdict."""
    launches = max((len(c.get("launches", [])) for c in calls), default=None)
    c = bytes_call(calls)
    if c is None:
        return {"launches": launches, "bytes_moved": None, "bytes_model": None}
    moved = c["bytes"]
    loaded = fused_loaded(moved, c["bytes_model"])
    summary = {"n": c["bytes_model"].get("n"), "loaded": loaded, "stored": moved["stored"],
               "total": loaded + moved["stored"]}
    if c.get("stores") is not None:  # where the stores went: the output, per-row side outputs, other tensors
        parts = store_breakdown(c)
        summary.update({k: parts[k] for k in ("output_bytes", "side", "side_bytes", "into_bytes", "restored")})
    return {"launches": launches, "bytes_moved": summary, "bytes_model": dict(c["bytes_model"])}


def apply_timing(v, runs) -> None:
    """Merge the CUDA child's speed gate into a verdict that passed every correctness call."""
    timing = next((r.result.get("timing") for r in runs if r.result and r.result.get("timing")), None)
    if timing is None:
        return
    v.timing = timing
    cat = timing.get("category")
    if timing.get("rows"):
        parts = [catalog.part("check_parts.speed", speedup=f"{timing['speedup']:.2f}", bar=timing.get("bar") or "eager",
                              at=timing.get("at") or "n=" + format(timing["n"], ","))]
        if timing.get("speedup_min"):
            parts.append(catalog.part("check_parts.speed_needs", need=timing["speedup_min"]))
        if timing.get("method") and timing["method"] != "do_bench":
            parts.append(catalog.part("check_parts.speed_method", method=timing["method"]))
    else:
        parts = [catalog.part("check_parts.not_timed", why=timing["skipped"]) if timing.get("skipped")
                 else catalog.part("check_parts.could_not_time")]
    name = "as fast as the speed gate asks (CUDA)" if timing.get("bar") else "faster than eager (CUDA)"
    v.checks.append({"name": name, "passed": cat is None, **catalog.detail(*parts)})
    if v.passed and cat:
        v.passed = False
        v.diagnosis = cat
        v.detail = {"timing": True, **{k: timing.get(k) for k in ("speedup", "speedup_min", "floor_s", "wrong",
                                                                   "exception", "n", "at", "copy_gbps", "flops",
                                                                   "peak_tflops", "bar")}}
        v.detail["numel"] = timing.get("out_numel") or timing.get("n")
        if timing.get("rows"):
            v.detail["candidate_ms"] = timing["rows"][0]["ms"]
            bar = next((r for r in timing["rows"] if timing.get("bar") and r["label"] == timing["bar"]),
                       timing["rows"][1])
            v.detail["eager_ms"] = bar["ms"]  # what the gate divided by: eager, or the spec's speed_bar row
        exc = timing.get("exception") or {}
        v.line = exc.get("line")


def annotate(v, calls: list[dict], runs, spec=None) -> None:
    """Everything fusion adds to a merged verdict: the JSON fields, a bytes check row, the speed gate."""
    s = summarize(calls)
    v.launches, v.bytes_moved, v.bytes_model = s["launches"], s["bytes_moved"], s["bytes_model"]
    if s["bytes_moved"]:
        over = [c for c in calls if extra_bytes(c)]  # its own evidence, whatever the call's category
        counted = [c for c in calls if c.get("bytes_model")]
        moved, model = s["bytes_moved"], s["bytes_model"]
        at = catalog.part("check_parts.bytes_at", ok=len(counted) - len(over), counted=len(counted),
                          n=f"{moved['n']:,}")
        if model.get("stored") is not None:  # tiled drills: only what is stored is bounded (the output alone)
            if "output_bytes" in moved:
                stored = [catalog.part("check_parts.stored_output", stored=f"{moved['output_bytes']:,}",
                                       output=f"{model['stored']:,}")]
                for field, key in (("side_bytes", "stored_side"), ("into_bytes", "stored_into"),
                                   ("restored", "stored_again")):
                    if moved.get(field):
                        stored.append(catalog.part(f"check_parts.{key}", bytes=f"{moved[field]:,}"))
            else:
                stored = [catalog.part("check_parts.stored_total", stored=f"{moved['stored']:,}",
                                       output=f"{model['stored']:,}")]
            v.checks.append({"name": "stores only the output", "passed": not over, **catalog.detail(at, *stored)})
        else:
            v.checks.append({"name": "bytes moved within the fused model", "passed": not over,
                             **catalog.detail(at, catalog.part("check_parts.bytes_moved", moved=f"{moved['total']:,}",
                                                               fused=f"{model['fused']:,}",
                                                               eager=f"{model['eager']:,}"))})
    apply_timing(v, runs)


# -- the registry's hooks (grader/families/registry.py) ---------------------------------------------------------------

RULE_ORDER = 10


def applies(spec) -> bool:
    return True


def call_evidence(ev: dict, spec, size, inputs) -> None:
    """An interpreted call's byte model at its size, for the bytes proof (spec.bytes_proof)."""
    if spec.bytes_proof and spec.byte_model is not None and inputs:
        ev["bytes_model"] = {"n": inputs[0].numel(), **spec.byte_model(size)}

