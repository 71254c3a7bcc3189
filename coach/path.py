"""The order through the drills: the guide's order (practice 3, then the chapter on how Inductor writes Triton, then
the custom device), then the interview syllabus's tensor-core questions. `drill list` shows it; `drill next` names
the first drill on it not yet passed."""
from __future__ import annotations

import drills

# (drill, where it comes from). Every drill appears once; test_path checks that against the specs.
PATH = [
    ("offsets", {"en": "practice 3 (04b)", "zh": "练习 3（04b）"}),
    ("mask", {"en": "practice 3 (04b)", "zh": "练习 3（04b）"}),
    ("grid", {"en": "practice 3 (04b)", "zh": "练习 3（04b）"}),
    ("vector-add", {"en": "practice 3 (04b)", "zh": "练习 3（04b）"}),
    ("fuse", {"en": "practice 3 (04c)", "zh": "练习 3（04c）"}),
    ("gelu", {"en": "practice 3 (§2.9)", "zh": "练习 3（§2.9）"}),
    ("transpose", {"en": "Inductor: 2-D indexing", "zh": "Inductor：二维索引"}),
    ("row-sum", {"en": "Inductor: reductions", "zh": "Inductor：归约"}),
    ("softmax", {"en": "Inductor: reductions", "zh": "Inductor：归约"}),
    ("rmsnorm", {"en": "Inductor: reductions", "zh": "Inductor：归约"}),
    ("persistent", {"en": "Inductor: grid limits", "zh": "Inductor：grid 限制"}),
    ("autotune", {"en": "Inductor: autotune", "zh": "Inductor：autotune"}),
    ("heuristics", {"en": "custom device (GXU)", "zh": "自定义设备（GXU）"}),
    ("matmul", {"en": "interview: tensor cores", "zh": "面试：tensor core"}),
    ("matmul-epilogue", {"en": "interview: tensor cores", "zh": "面试：tensor core"}),
    ("attention", {"en": "interview: tensor cores", "zh": "面试：tensor core"}),
]


def order() -> list[str]:
    """Every drill, in the path's order; a drill the path does not list yet comes last, in the specs' order."""
    listed = [n for n, _ in PATH if n in drills.names()]
    return listed + [n for n in drills.names() if n not in listed]


def stage(name: str) -> dict:
    return dict(PATH).get(name, {"en": "", "zh": ""})


def next_drill(state: dict) -> str | None:
    """The first drill on the path never passed (None when every drill has passed)."""
    for name in order():
        if not ((state.get("drills") or {}).get(name) or {}).get("passes"):
            return name
    return None
