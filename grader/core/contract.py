"""A heuristic's returned launch config checked against per-field rules: what a spec's FunctionContract check is
built from (grader/core/spec.py), and what a device's launch limits read (grader/families/limits.py)."""
from __future__ import annotations

import numbers


def is_pow2(v: int) -> bool:
    return v >= 1 and (v & (v - 1)) == 0


def config_problems(config, fields) -> list[dict]:
    """`fields`: (key, category, lowest, highest, power_of_two). A problem per key that is missing, not an int,
    not a power of two (when asked) or outside [lowest, highest]; a result that is not a dict is one problem."""
    if not isinstance(config, dict):
        return [{"category": "error", "rule": "returned", "got": type(config).__name__}]
    out = []
    for key, category, lo, hi, pow2 in fields:
        base = {"category": category, "field": key, "min": lo, "max": hi, "pow2": pow2}
        if key not in config:
            out.append({**base, "rule": "missing"})
            continue
        v = config[key]
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            out.append({**base, "rule": "type", "value": repr(v)[:40], "type": type(v).__name__})
            continue
        v = int(v)
        if pow2 and not is_pow2(v):
            out.append({**base, "rule": "pow2", "value": v})
        elif v < lo:
            out.append({**base, "rule": "min", "value": v})
        elif v > hi:
            out.append({**base, "rule": "max", "value": v})
    return out
