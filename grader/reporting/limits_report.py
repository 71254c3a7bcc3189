"""Report parts for drills with device limits (grader/families/limits.py): the message of a refused or mismatched launch or
of the heuristic's contract, the limits line, and on CUDA the capped-vs-uncapped timing."""
from __future__ import annotations

from rich.text import Text

from grader.core import catalog
from grader.reporting.i18n import DIAGNOSES, check_detail, pick, t
from grader.families.limits import owns

FIX_BY_CATEGORY = catalog.table("limits_fix_by_category")

_RULE_KEY = {"pow2": "contract-pow2", "max": "contract-max", "min": "contract-min", "type": "contract-type",
             "missing": "contract-missing", "returned": "contract-returned", "raised": "contract-raised",
             "missing-function": "contract-missing-function"}


def explain(category: str, d: dict, spec, lang: str) -> tuple[str, str] | None:
    """(text key, format arguments) for a verdict whose detail came from grader/families/limits.py; None otherwise."""
    if not owns(d):
        return None
    lim = spec.device_limits
    kw = {"entry": spec.entry, "device": lim.name if lim else "device", "max_programs": getattr(lim, "max_programs", "?"),
          "max_warps": getattr(lim, "max_warps", "?"), "min_block": getattr(lim, "min_block", "?"),
          "max_block": getattr(lim, "max_block", "?"),
          "inputs": len(spec.contract.inputs) if spec.contract else "?",
          "function": spec.contract.function if spec.contract else "?",
          "signature": spec.contract.signature if spec.contract else "?"}
    kw.update({k: v for k, v in d.items() if v is not None and not isinstance(v, (dict, list))})
    lines = d.get("config_lines") or {}
    kw.update(grid_line=lines.get("grid", "?"), warps_line=lines.get("num_warps", "?"),
              xblock_line=lines.get("XBLOCK", "?"))
    kw["failing_note"] = t("limits_failing_note", lang, failing=d["failing_inputs"], inputs=kw["inputs"],
                           input=d.get("input")) if d.get("failing_inputs") else ""
    if d.get("refused"):
        key = "device-refuses-block" if d.get("bad_block") else "device-refuses"
    elif d.get("mismatch"):
        key = "launch-mismatch"
    else:
        key = _RULE_KEY.get(d.get("rule"), "contract-max")
        if d.get("exception"):
            e = d["exception"]
            kw.update(type=e.get("type", "?"), message=(e.get("message") or "").splitlines()[0][:200] if
                      e.get("message") else "")
        if d.get("max") is not None:  # the rule's own bounds (a field's min/max) name the limit in the fix
            field_max = {"xblock": "max_block", "warps": "max_warps", "grid": "max_programs"}.get(category)
            if field_max:
                kw[field_max] = d["max"]
    return key, kw


def texts_for(key: str, category: str) -> tuple[dict, dict]:
    """(what, fix) templates: the key's own fix, else the category's (how to compute that field)."""
    entry = DIAGNOSES.get(key, {})
    return entry.get("what", {}), entry.get("fix") or FIX_BY_CATEGORY.get(category, {})


def render_parts(v, spec, lang: str) -> list:
    lim = spec.device_limits
    info = getattr(v, "device_limits", None)
    if lim is None or not info:
        return []
    parts = []
    contract = info.get("contract") or {}
    if v.passed:
        parts.append(Text("  " + t("limits_line", lang, device=lim.name, max_programs=lim.max_programs,
                                   max_warps=lim.max_warps, min_block=lim.min_block, max_block=lim.max_block,
                                   function=contract.get("function", "?"), inputs=contract.get("inputs", 0),
                                   largest=contract.get("largest", 0)), style="dim"))
    timing = info.get("timing") or {}
    rows = timing.get("rows") or []
    if rows:
        name = next((r.get("device_name") for r in rows if r.get("device_name")), "CUDA")
        parts.append(Text(t("limits_timing_title", lang, name=name), style="bold"))
        for r in rows:
            if r.get("skipped"):
                parts.append(Text(t("limits_timing_skipped", lang, n=f"{r['n']:,}", why=check_detail(r["skipped"], lang))))
                continue
            parts.append(Text(t("limits_timing_row", lang, n=f"{r['n']:,}", programs=r["programs"], block=r["block"],
                                capped=f"{r['capped_us']:.1f}", tiles=f"{r['tiles']:,}",
                                uncapped=f"{r['uncapped_us']:.1f}", slowdown=f"{r['slowdown']:.2f}",
                                eager=f"{r['eager_us']:.1f}")))
        parts.append(Text("  " + t("limits_lesson", lang), style="italic"))
    elif timing.get("skipped"):
        parts.append(Text(t("limits_timing_skipped", lang, n="-", why=check_detail(timing["skipped"], lang)), style="dim"))
    elif v.passed and v.device == "cpu":
        parts.append(Text("  " + t("limits_cpu_note", lang), style="dim italic"))
    return parts


def what_and_fix(v, spec, lang: str, fmt) -> tuple[str, str] | None:
    """The whole message for report.explain, or None when the verdict is not about device limits."""
    got = explain(v.diagnosis, v.detail or {}, spec, lang)
    if got is None:
        return None
    key, kw = got
    what, fix = texts_for(key, v.diagnosis)
    return fmt(pick(what, lang), **kw), fmt(pick(fix, lang), **kw)
