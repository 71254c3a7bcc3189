"""Report parts for compile labs (grader/families/compiled.py): the message of a graph break, a recompile, an opcheck
failure, a wrong gradient or a kernel Inductor does not launch, and the list of what Dynamo saw, each item in
Dynamo's own words next to the learner's line."""
from __future__ import annotations

from rich.text import Text

from grader.reporting.i18n import DIAGNOSES, check_detail, pick, t
from grader.reporting.texts import drill_texts

MAX_ITEMS = 8


def _shapes(shapes) -> str:
    return ", ".join(s if isinstance(s, str) else ("x".join(map(str, s)) if isinstance(s, list) else str(s))
                     for s in shapes or [])


def what_and_fix(v, spec, lang: str, fmt) -> tuple[str, str] | None:
    """The whole message for report.explain, or None when the verdict is not the compile lab's."""
    d = v.detail or {}
    if spec.compile_lab is None or not d.get("compile"):
        return None
    cat = v.diagnosis
    c = v.info.get("compile") or {}
    others = [p for p in d.get("all", []) if p.get("category") in ("graph-break", "recompile")]
    more = len(others) - 1 if cat in ("graph-break", "recompile") else 0
    kw = {k: val for k, val in d.items() if val is not None and not isinstance(val, (dict, list))}
    kw.update(entry=spec.entry, op=spec.compile_lab.op, name=spec.compile_lab.op.partition("::")[2] or "op",
              line=d.get("line") or "?", compiles=c.get("compiles"), shapes=_shapes(c.get("shapes")),
              explanation=f" ({d['explanation']})" if d.get("explanation") else "",
              more=t("compile_more", lang, n=more) if more > 0 else "",
              mistake=f": {d['mistake']}" if d.get("mistake") else "", code=d.get("code") or "-",
              kernels=", ".join(d.get("kernels") or []) or "-",
              error=f": {d['error']}" if d.get("error") else "")
    key = cat
    if cat == "autograd" and d.get("exception"):
        key = "autograd-error"
        kw["message"] = (d["exception"].get("message") or "").splitlines()[0][:300]
    elif cat in ("autograd", "registration") and d.get("test"):
        key = f"{cat}-opcheck"
    what = DIAGNOSES.get(key, {}).get("what") or DIAGNOSES.get(cat, {}).get("what") or cat
    fixes = drill_texts(v.drill).get("fixes") or {}
    fix = fixes.get(v.hole or "") or fixes.get(cat) or DIAGNOSES.get(cat, {}).get("fix") or ""
    return fmt(pick(what, lang), **kw), fmt(pick(fix, lang), **kw)


def render_parts(v, spec, lang: str) -> list:
    """What Dynamo saw, one line per break, recompile and failed opcheck test; Inductor's code on CUDA."""
    c = v.info.get("compile") if spec.compile_lab is not None else None
    if not c:
        return []
    parts = []
    breaks, recompiles = c.get("breaks") or [], [r for r in c.get("recompiles") or [] if r.get("category")] or \
        (c.get("recompiles") or [])
    extra = max(0, c.get("recompile_count", len(c.get("recompiles") or [])) - spec.compile_lab.max_recompiles)
    items = [t("compile_break", lang, line=b.get("line") or "?", reason=b["reason"],
               explanation=f" — {b['explanation']}" if b.get("explanation") else "") for b in breaks]
    if extra:
        items += [t("compile_recompile", lang, line=r.get("line") or "?", reason=r["reason"]) +
                  (f"  # {r['code']}" if r.get("code") else "") for r in recompiles]
    items += [t("compile_opcheck", lang, test=test, result=check_detail(result, lang)) for test, result in (c.get("opcheck") or {}).items()
              if result != "SUCCESS"]
    if items or not v.passed:
        parts.append(Text(t("compile_seen", lang, backend=c.get("backend"), graphs=c.get("graphs", "?"),
                            breaks=len(breaks), compiles=c.get("compiles", "?"), shapes=_shapes(c.get("shapes"))),
                          style="bold"))
        for line in items[:MAX_ITEMS]:
            parts.append(Text(line, style="yellow"))
    ind = c.get("inductor")
    if ind and ind.get("excerpt"):
        parts.append(Text(t("compile_inductor", lang, device=c.get("device"),
                            found=", ".join(ind.get("found") or []) or "-"), style="bold"))
        for line in ind["excerpt"]:
            parts.append(Text("    " + line[:160], style="dim"))
    elif c.get("device") == "cpu" and spec.compile_lab.inductor_kernel:
        parts.append(Text("  " + t("compile_cpu_note", lang), style="dim italic"))
    return parts
