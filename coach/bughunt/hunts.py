"""Bug hunts in the learner's state, apart from the drills written from a skeleton: state["bug_hunts"].

    files:  {absolute path of a written bug file: marker}   the marker drill writes at `start --bug` (never into the
            learner's file): drill, bug id, category, planted line(s), the planted and intended lines, the whole
            planted text (to compare the learner's fix with), hints seen, grades, and when it was fixed
    drills: {drill: {started, graded, fixed, met: {bug id: n}, fixed_ids: {bug id: n}, last_bug, history: [...]}}
    kinds:  {category: how many planted mistakes of that kind the learner has met}

Pure functions over the state dict; callers hold coach.store.Store.update().
"""
from __future__ import annotations

import random
from collections import Counter

from coach.bughunt import catalog

SECTION = "bug_hunts"
KEEP_FILES = 50  # markers kept (the oldest go first)


def section(state: dict) -> dict:
    s = state.get(SECTION)
    if not isinstance(s, dict):
        s = state[SECTION] = {}
    for key in ("files", "drills", "kinds"):
        if not isinstance(s.get(key), dict):
            s[key] = {}
    return s


def drill_record(state: dict, drill: str) -> dict:
    d = section(state)["drills"].get(drill)
    if not isinstance(d, dict):
        d = section(state)["drills"][drill] = {}
    for key, default in (("started", 0), ("graded", 0), ("fixed", 0), ("met", {}), ("fixed_ids", {}),
                         ("last_bug", None), ("history", [])):
        if key not in d or (default is not None and not isinstance(d[key], type(default))):
            d[key] = default  # a fresh literal on every call
    return d


def choose(state: dict, drill: str, rng: random.Random | None = None) -> catalog.Bug:
    """The next bug for DRILL: never the one planted last time; of the kinds (categories) this drill can plant, the
    one the learner has met least (over every drill), then the bug met least; ties by chance."""
    rng = rng or random.Random()
    bugs = catalog.bugs_for(drill)
    if not bugs:
        raise KeyError(drill)  # no planted mistakes in drills/bugs/ for it: the caller says so (coach.common.no_bugs)
    rec = drill_record(state, drill)
    pool = [b for b in bugs if b.id != rec.get("last_bug")] or bugs
    kinds = Counter(section(state)["kinds"])
    order = {b.id: rng.random() for b in pool}
    return min(pool, key=lambda b: (kinds.get(b.category, 0), rec["met"].get(b.id, 0), order[b.id]))


def open_hunt(state: dict, path: str, planted: catalog.Planted, now: float) -> dict:
    s = section(state)
    marker = {"drill": planted.drill, "bug": planted.bug.id, "category": planted.bug.category,
              "line": planted.line, "lines": list(planted.lines), "planted": list(planted.planted),
              "intended": list(planted.intended), "blocks": [[a, b, list(i)] for a, b, i in planted.blocks],
              "text": planted.text, "at": now, "hints_seen": 0, "graded": 0, "fixed_at": None}
    s["files"][path] = marker
    if len(s["files"]) > KEEP_FILES:
        for old in sorted(s["files"], key=lambda p: s["files"][p].get("at") or 0)[:len(s["files"]) - KEEP_FILES]:
            del s["files"][old]
    rec = drill_record(state, planted.drill)
    rec["started"] += 1
    rec["met"][planted.bug.id] = rec["met"].get(planted.bug.id, 0) + 1
    rec["last_bug"] = planted.bug.id
    s["kinds"][planted.bug.category] = s["kinds"].get(planted.bug.category, 0) + 1
    return marker


def marker_for(state: dict, path: str) -> dict | None:
    m = section(state)["files"].get(path)
    return m if isinstance(m, dict) and m.get("bug") else None


def latest_open(state: dict, drill: str) -> tuple[str, dict] | None:
    """The most recently started bug file of DRILL that is not fixed yet."""
    found = [(p, m) for p, m in section(state)["files"].items()
             if isinstance(m, dict) and m.get("drill") == drill and not m.get("fixed_at")]
    return max(found, key=lambda pm: pm[1].get("at") or 0) if found else None


def record_grade(state: dict, path: str, passed: bool, diagnosis: str | None, now: float) -> dict | None:
    """One grade of a bug file: counted under the bug hunts (not the drill's attempts). Returns the marker as it was
    before this grade closed it (first_fix True when this grade is the one that fixed it), or None when PATH is not a
    bug file drill wrote."""
    marker = marker_for(state, path)
    if marker is None:
        return None
    rec = drill_record(state, marker["drill"])
    marker["graded"] = marker.get("graded", 0) + 1
    rec["graded"] += 1
    first_fix = bool(passed and not marker.get("fixed_at"))
    if first_fix:
        marker["fixed_at"] = now
        rec["fixed"] += 1
        rec["fixed_ids"][marker["bug"]] = rec["fixed_ids"].get(marker["bug"], 0) + 1
    if first_fix or not passed:
        rec["history"] = (rec.get("history") or [])[-29:] + [
            {"at": now, "bug": marker["bug"], "passed": bool(passed), "diagnosis": diagnosis,
             "hints_seen": marker.get("hints_seen", 0)}]
    return dict(marker, first_fix=first_fix)
