"""The order through the drills: the guide's order (practice 3, then the chapter on how Inductor writes Triton, then
the custom device), then the interview syllabus's tensor-core questions. `drill list` shows it; `drill next` names
the first drill on it not yet passed."""
from __future__ import annotations

import drills
from grader.core import catalog

# (drill, where it comes from: a key of texts.yaml's coach.path). Every drill appears once; test_path checks that
# against the specs.
PATH = [
    ("offsets", "practice3_04b"),
    ("mask", "practice3_04b"),
    ("grid", "practice3_04b"),
    ("vector-add", "practice3_04b"),
    ("fuse", "practice3_04c"),
    ("gelu", "practice3_2_9"),
    ("transpose", "inductor_2d"),
    ("row-sum", "inductor_reductions"),
    ("softmax", "inductor_reductions"),
    ("rmsnorm", "inductor_reductions"),
    ("persistent", "inductor_grid_limits"),
    ("autotune", "inductor_autotune"),
    ("heuristics", "custom_device"),
    ("matmul", "tensor_cores"),
    ("matmul-epilogue", "tensor_cores"),
    ("attention", "tensor_cores"),
]


def order() -> list[str]:
    """Every drill, in the path's order; a drill the path does not list yet comes last, in the specs' order."""
    listed = [n for n, _ in PATH if n in drills.names()]
    return listed + [n for n in drills.names() if n not in listed]


def stage(name: str) -> dict:
    """Where drill `name` comes from, {"en": ..., "zh": ...}; empty for a drill the path does not list yet."""
    where = dict(PATH).get(name)
    return catalog.both(f"coach.path.{where}") if where else {"en": "", "zh": ""}


def next_drill(state: dict) -> str | None:
    """The first drill on the path never passed (None when every drill has passed)."""
    for name in order():
        if not ((state.get("drills") or {}).get(name) or {}).get("passes"):
            return name
    return None
