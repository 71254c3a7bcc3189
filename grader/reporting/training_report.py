"""Report parts for training drills (grader/families/training.py): what is wrong with a gradient and its fix, and
which gradient the first bad element belongs to. Used only for specs with `grads`."""
from __future__ import annotations

from rich.text import Text

from grader.core import catalog
from grader.reporting.i18n import DIAGNOSES as COMMON, mistake_name, pick

DIAGNOSES = catalog.table("training_diagnoses")
M = catalog.table("training_messages")

OWN = ("autograd", "variance", "cancellation", "dx", "dwdb", "race", "memory", "grad-scale", "gradient", "ignore-index")


def _gradient_mistake(mistake: dict, lang: str) -> str:
    """The known mistake a gradient matches, by its name in the learner's language."""
    return mistake_name(mistake, lang) or catalog.text("training_messages.a_known_mistake", lang)


def what_and_fix(v, spec, lang: str, fmt) -> tuple[str, str] | None:
    """(what, fix) for the training categories and for any values failure in a gradient; None otherwise."""
    if getattr(spec, "grads", None) is None or v.passed:
        return None
    d, cat = v.detail or {}, v.diagnosis
    grad_of = d.get("grad_of") or (v.focus or {}).get("grad_of")
    if cat not in OWN and not (grad_of and d.get("wrong")):
        return None
    if cat == "ignore-index" and not grad_of:  # the loss itself: the mistake's own fix (grader/reporting/report.py)
        return None
    kw = {"entry": spec.entry, "grad_of": grad_of or "y", "wrong": d.get("wrong"), "numel": d.get("numel"),
          "probe": d.get("probe"), "mistake": _gradient_mistake(d.get("mistake") or {}, lang)}
    key, fix_key = cat, cat
    if cat == "autograd":
        key = fix_key = f"autograd-{d.get('autograd', 'no-graph')}"
        kw["tensors"] = ", ".join(d.get("tensors") or []) or "?"
    elif cat == "race":
        kw.update({k: d["race"].get(k) for k in ("kernel", "line", "programs", "elements", "tensor")})
        fix_key = "race-fix"
    elif cat == "memory":
        m = d.get("memory") or {}
        from grader.watch.torch_watch import human_bytes
        key, fix_key = ("memory-peak" if "peak_bytes" in m else "memory"), "memory-fix"
        kw.update({k: m.get(k) for k in ("tensor", "dtype", "numel", "limit")},
                  shape=" x ".join(map(str, m.get("shape") or [])), size=human_bytes(m.get("bytes") or
                                                                                      m.get("peak_bytes") or 0),
                  allowed=human_bytes(m.get("allowed_bytes") or 0))
    elif cat in ("dx", "dwdb") and d.get("mistake"):
        key = f"{cat}-mistake"
    elif grad_of and d.get("mistake"):  # a gradient that matches a known mistake, in its own category
        key = "grad-mistake"
    elif cat not in OWN:  # a plain values failure in a gradient, in the drill's value category
        key = "grad-values"
    what = DIAGNOSES.get(key, {}).get("what") or COMMON.get(cat, {}).get("what") or cat
    fix = DIAGNOSES.get(fix_key, {}).get("fix") or COMMON.get(cat, {}).get("fix") or ""
    return fmt(pick(what, lang), **kw), fmt(pick(fix, lang), **kw)


def render_parts(v, spec, lang: str) -> list:
    """A line naming the gradient the first bad element is in, and on a pass what was graded."""
    if getattr(spec, "grads", None) is None:
        return []
    grad_of = (v.focus or {}).get("grad_of")
    if not v.passed and grad_of and (v.focus or {}).get("first_bad"):
        return [Text(pick(M["grad_in"], lang).format(grad_of=grad_of), style="yellow")]
    if v.passed:
        tensors = ", ".join(f"{n}.grad" for n in spec.grads.wrt)
        return [Text(pick(M["grads_checked"], lang).format(tensors=tensors), style="dim")]
    return []
