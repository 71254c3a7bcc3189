"""A launch's constexprs (its `meta`) read as block sizes, whatever the learner named them: the helpers a spec's
mistake models and the grader's evidence share."""
from __future__ import annotations

BLOCK_NAMES = ("BLOCK_SIZE", "BLOCK", "XBLOCK", "BLOCK_N", "BLOCK_M", "RBLOCK")


def block_of(meta: dict) -> int | None:
    for name in BLOCK_NAMES:
        if isinstance(meta.get(name), int):
            return meta[name]
    for name, value in meta.items():
        if "BLOCK" in name.upper() and isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def block_along(meta: dict, axis: str) -> int | None:
    """The kernel's block size along `axis` ("K", "N"), whatever the learner called it: BLOCK_K, BLOCK_SIZE_K, BK."""
    for name, value in meta.items():
        upper = name.upper()
        if isinstance(value, int) and not isinstance(value, bool) and upper.endswith(axis) and \
                ("BLOCK" in upper or upper in (f"B{axis}", f"T{axis}", f"TILE_{axis}")):
            return value
    return None
