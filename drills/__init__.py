"""The drills: skeletons (this folder), reference solutions (../solutions), specs (specs.py), texts (prompts.yaml)."""
from __future__ import annotations

from .specs import SPECS

_BY_NAME = {s.name: s for s in SPECS}


def names() -> list[str]:
    return [s.name for s in SPECS]


def get_spec(name: str):
    """The spec of a drill; KeyError with the known names if there is none."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown drill {name!r}; drills: {', '.join(names())}") from None
