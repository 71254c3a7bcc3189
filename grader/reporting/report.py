"""Render a verdict for a person: what is wrong, where (the line, the tiles, the first bad element), and the fix."""
from __future__ import annotations

import json
import re

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from drills import get_spec
from grader.core import catalog
from grader.families import registry
from grader.reporting import learner_output
from grader.reporting.i18n import DIAGNOSES, check_detail, check_name, mistake_name, pick, row_detail, t
from grader.judge.diagnose import mask_axis, swapped_axis
from grader.reporting.texts import checkpoints_for, drill_texts

TILE_STYLE = {"o": ("■", "green"), "x": ("✗", "red"), ".": ("·", "grey50"), "!": ("!", "bold magenta")}
TILE_ROW = 50
MAX_CELLS = 256


PLURALS = ("lanes", "rows", "columns", "elements", "programs", "tiles", "calls", "launches", "kernels", "bytes",
           "lines", "seeds", "configs", "sizes", "holes", "points")
ONE = re.compile(r"(?<![\d.,x×])\b1 (" + "|".join(PLURALS) + r")\b")


def singular(text: str) -> str:
    """"1 lanes" -> "1 lane": the templates say the plural, the count is sometimes one."""
    return ONE.sub(lambda m: "1 " + m.group(1)[:-1], text)


def _fmt(template: str, **kw) -> str:
    class Missing(dict):
        def __missing__(self, key):
            return "?"
    return singular(template.format_map(Missing(kw)))


def explain(v, lang: str) -> tuple[str, str]:
    """(what is wrong, the fix) for the verdict's diagnosis, in the learner's language."""
    d, cat = v.detail or {}, v.diagnosis
    spec = get_spec(v.drill)
    entry = spec.entry
    key = cat
    kw: dict = {"drill": v.drill, "entry": entry, "signature": spec.signature}
    own = registry.first(spec, "what_and_fix", v, spec, lang, _fmt)  # a family's whole message (device limits,
    if own:                                                             # a compile lab, gradients)
        return own
    mistake = d.get("mistake") or {}
    if mistake.get("fix"):  # a known mistake that carries the drill's own fix
        kw.update(wrong=d.get("wrong"), numel=d.get("numel"),
                  mistake=mistake_name(mistake, lang))
        where = mistake.get("footprint")
        if where:  # told by where the stores went, not by the values
            out, never, twice = where["outside"], where["unwritten"], where["twice"]
            counts = [phrase("footprint_never", lang, n=never) if never else "",
                      phrase("footprint_twice", lang, n=twice) if twice else ""]
            kw.update(where, counts=phrase("footprint_and", lang).join(c for c in counts if c),
                      outside=phrase("footprint_outside", lang, n=out) if out else "")
            what = pick(DIAGNOSES["mistake-footprint"]["what"], lang)
            return _fmt(what, **kw), _fmt(pick(mistake["fix"], lang), **kw)
        return _fmt(pick(DIAGNOSES["mistake"]["what"], lang), **kw), _fmt(pick(mistake["fix"], lang), **kw)
    viol = d.get("violation") or {}
    own = spec.oob_texts.get(str(viol.get("tensor", "")).removeprefix("input ")) if viol else None
    if own:  # an out-of-bounds access to an input the drill has its own words for
        kw.update(kind=f"tl.{viol['kind']}", lanes=viol["lanes"], tensor=viol["tensor"], first=viol["first_elem"],
                  numel=viol["numel"], program=viol["program"],
                  where=phrase(f"oob_where.{viol['side'] if viol['side'] in ('before', 'after') else 'mixed'}", lang))
        return _fmt(pick(own["what"], lang), **kw), _fmt(pick(own["fix"], lang), **kw)
    if cat in ("internal", "not-checked"):  # no verdict: drill's own failure, or what the interpreter cannot run
        kw.update({k: v for k, v in (d.get("internal") or d).items() if isinstance(v, (str, int, float))})
        if cat == "not-checked" and isinstance(kw.get("reason"), str):  # the interpreter's limit, said in English
            kw["reason"] = check_detail(kw["reason"], lang)
    elif cat == "hole":
        holes = d.get("holes", [])
        first = holes[0] if holes else {"name": v.hole, "line": v.line}
        rest = sorted({f"{h['name']}" for h in holes[1:] if h["name"] != first["name"]})
        more_lines = [str(h["line"]) for h in holes[1:]]
        kw.update(name=first["name"], line=first["line"],
                  more=(phrase("hole_also", lang, names=", ".join(rest)) if rest else "") +
                       (phrase("hole_also_lines" if len(more_lines) > 1 else "hole_also_line", lang,
                              lines=", ".join(more_lines)) if more_lines else ""))
    elif cat in ("error", "crash") and d.get("exception"):
        e = d["exception"]
        stage = phrase(f"stage_{d['stage']}", lang) if d.get("stage") in ("import", "entry", "grade") else \
            phrase("stage_call", lang, entry=entry)
        if e.get("type") == "SyntaxError":
            stage = phrase("stage_syntax", lang)
        if e.get("compiler"):
            key = "error-compiler"
            kw["kernel"] = e.get("kernel")
        msg = e.get("message", "")
        if e.get("type") == "MissingEntry":
            found = [f for f in e.get("found") or [] if f != "HOLE"]  # drill's own placeholder, not the learner's
            key = "missing-entry"
            kw["found"] = ", ".join(found) or "none"
        kw.update(stage=stage, type=e.get("type", "?"),  # a message drill wrote (texts.yaml) comes back translated
                  message=check_detail(msg.splitlines()[0], lang) if msg else "",
                  signal=phrase("cuda_illegal_access", lang) if cat == "crash" else "")
        if cat == "crash":
            kw["signal"] = msg.splitlines()[0] if msg else phrase("cuda_fault", lang)
    elif cat == "error" and "returned" in d:
        kw.update(stage=phrase("stage_call", lang, entry=entry), type="TypeError",
                  message=phrase("returned_not_tensor", lang, returned=d['returned']))
    elif cat == "crash":
        kw.update(signal=d.get("signal") or phrase("exit_code", lang, code=d.get('returncode')),
                  returncode=d.get("returncode"))
        if not d.get("signal"):
            key = "crash-exit"
        elif d.get("device") == "cpu":
            key = "crash-cpu"
    elif cat == "timeout":
        kw.update(seconds=d.get("seconds"), device=d.get("device"))
        if d.get("startup"):  # killed before the learner's code ran: drill's start-up, not their loop
            key = "timeout-startup"
            kw["stage"] = startup_stage(d["startup"], lang)
        if d.get("budget"):
            key = "timeout-budget"
            size = d.get("size")
            kw.update(size=size if isinstance(size, int) else "x".join(map(str, size or [])),
                      estimate=d.get("estimate_s"), programs=d.get("programs") or "?")
    elif cat == "torch-fallback":
        kw["ops"] = ", ".join(sorted({o["op"] for o in d.get("ops", [])}))
    elif (family := registry.first(spec, "explain_kw", v, spec, lang, cat, d)) is not None:
        key, family_kw = family  # a family's text key and arguments (fusion: launches, bytes, the speed gate)
        kw.update(family_kw)
    elif cat in ("dtype", "shape"):
        kw.update(got=d.get("got"), expected=d.get("expected"), device=d.get("device"))
        if cat == "shape" and d.get("no_device"):
            key = "shape-device"
            kw.update(line=d["no_device"].get("line") or "?", tensor=d["no_device"].get("tensor"))
        elif cat == "shape" and d.get("strides"):
            key = "shape-layout-dense" if d.get("layout_rule") == "dense" else "shape-layout"
            kw.update(strides=tuple(d["strides"]), expected_strides=tuple(d.get("expected_strides") or ()))
    elif cat == "input-mutated":
        kw.update(**d["inputs"][0])
        if d.get("returned_input"):
            key = "input-returned"
    elif cat in ("mask", spec.stride_category) and d.get("violation") and (axis := axis_words(spec, d, cat, lang)):
        key, words = axis
        kw.update(words)
    elif cat == "mask" and d.get("violation"):
        viol = d["violation"]
        kw.update(kind=f"tl.{viol['kind']}", lanes=viol["lanes"], tensor=viol["tensor"], first=viol["first_elem"],
                  last=viol["last_elem"], numel=viol["numel"], program=viol["program"])
    elif cat == "mask" and d.get("guard"):
        key = "mask-guard"
        kw.update(after=d["guard"]["after"], tensor=d["guard"]["tensor"], numel=d["guard"]["numel"])
    elif cat == "mask" and d.get("too_strict"):
        key = "mask-strict"
        kw.update(unwritten=d.get("unwritten"))
    elif d.get("violation") and f"{cat}-oob" in DIAGNOSES:  # the drill's word for it (bias; a probe's layout)
        viol = d["violation"]
        key = f"{cat}-oob"
        kw.update(tensor=viol["tensor"], lanes=viol["lanes"], first=viol["first_elem"], numel=viol["numel"],
                  program=viol["program"], kind=f"tl.{viol['kind']}", probe=probe_name(spec, d.get("probe"), lang))
    elif d.get("violation"):  # an out-of-bounds address that is not a tail overrun: index arithmetic
        viol = d["violation"]
        key = "oob-index"
        where = phrase(f"oob_where.{viol['side']}", lang)
        if viol.get("inside_no_tensor"):
            where = phrase("oob_where.no_tensor", lang)
        kw.update(kind=f"tl.{viol['kind']}", lanes=viol["lanes"], tensor=viol["tensor"], first=viol["first_elem"],
                  numel=viol["numel"], program=viol["program"], where=where,
                  close=phrase("oob_close", lang) if viol.get("inside_no_tensor") else "")
    elif cat == "offsets":
        if d.get("guard"):
            what = phrase("offsets_guard", lang, before=d['guard']['before'], tensor=d['guard']['tensor'])
        elif d.get("duplicates"):
            what = phrase("offsets_duplicates", lang, duplicates=d['duplicates']) + (
                phrase("offsets_also_unwritten", lang, unwritten=d['unwritten']) if d.get("unwritten") else "")
        else:
            what = phrase("offsets_unwritten", lang, unwritten=d.get('unwritten'), numel=d.get('numel'))
        kw["what"] = what
    elif cat == "grid":
        kw.update(programs=d.get("programs"), block=d.get("block"), coverage=d.get("coverage"),
                  numel=d.get("numel"), unwritten=d.get("unwritten"))
        if d.get("mapping"):
            key = "grid-map"
        elif d.get("issued"):
            key = "grid-issued"
        elif d.get("axes"):
            key = "grid-axes"
            kw["axes"] = ", ".join(str(tuple(a)) for a in d["axes"] if a)
        if d.get("wasted"):
            key = f"grid-waste-{d['wasted']}"
            kw.update({k: d.get(k) for k in ("working", "idle", "repeats", "distinct", "duplicates", "covered",
                                             "kernel")})
    elif cat in ("indexing", "reduction", "stability", "other", "persistent", "autotune"):
        kw.update({k: (", ".join(map(str, v)) if isinstance(v, list) else v) for k, v in d.items()
                   if v is not None and not isinstance(v, dict)})
        if cat == "persistent" and d.get("duplicates"):
            key = "persistent-dup"
        if cat == "persistent" and d.get("loop_misses"):
            key = "persistent-miss"
        if cat == "reduction" and close_to_reference(d):
            key, kw["ratio"] = "wrong-values-close", d["error_ratio"]
        if d.get("masked_load"):
            key = "masked-other"
            kw.update(line=d["masked_load"]["line"], other=d["masked_load"]["other"], lanes=d["masked_load"]["lanes"])
        if cat == "autotune":
            kw["problem"] = pick(DIAGNOSES["autotune-problem"].get(d.get("problem"), d.get("problem")), lang)
            kw["labels"] = "; ".join(d.get("labels") or []) or "-"
    elif cat in ("unwritten", "wrong-values", "strides", "k-loop", "epilogue", "scale", "causal", "rescale"):
        kw.update(unwritten=d.get("unwritten"), numel=d.get("numel"), wrong=d.get("wrong"), probe=probe_name(spec, d.get("probe"), lang),
                  mistake=mistake_name(d.get("mistake") or {}, lang) or phrase("a_known_mistake", lang),
                  configs=d.get("configs"))
        if d.get("tuning"):  # right with each config pinned, wrong once the autotuner's benchmark runs happened
            key = "wrong-values-tuning"
        elif cat == "causal" and d.get("mistake") and not d.get("probe"):  # the plain calls failed, not causal=True
            key = "causal-plain"
        elif cat == "strides" and d.get("layout_only"):  # right on a layout probe only: that layout is assumed
            key = "strides-layout-only"
            kw["probe"] = probe_name(spec, d["layout_only"], lang)
        elif cat == "strides" and d.get("mistake"):  # the output is what a named stride mistake computes
            key = "strides-mistake"
        elif cat == "wrong-values" and close_to_reference(d):
            key = "wrong-values-close"
            kw["ratio"] = d["error_ratio"]
    if d.get("returned_input") and key == cat:
        key = "returned-input"
        kw["tensor"] = d["returned_input"]
    # Most specific first: the key (its 2-D variant in 2-D drills), then the category (likewise). A drill's own fix
    # text (prompts.yaml: drills.<name>.fixes.<key>) comes before the shared one: a fix is never another drill's.
    keys = [f"{key}-2d", key, f"{cat}-2d", cat] if spec.two_d else [key, cat]
    own = drill_texts(v.drill).get("fixes") or {}
    what = next((DIAGNOSES[k]["what"] for k in keys if "what" in DIAGNOSES.get(k, {})), cat)
    if d.get("mistake") and "{mistake}" not in pick(what, "en"):  # the category's text does not say what matched
        what = DIAGNOSES["mistake"]["what"]
        kw["mistake"] = mistake_name(d["mistake"], lang)
    fix = next((own[k] if k in own else DIAGNOSES[k]["fix"] for k in keys
                if k in own or "fix" in DIAGNOSES.get(k, {})), "")
    return _fmt(pick(what, lang), **kw), _fmt(pick(fix, lang), **kw)


def phrase(key: str, lang: str, **kw) -> str:
    """A phrase the report puts into a diagnosis's fields (texts.yaml `report_words`)."""
    return catalog.text(f"report_words.{key}", lang, **kw)


def startup_stage(stage: str, lang: str) -> str:
    """What drill was doing when a start-up timeout killed the grade (one of texts.yaml's `progress` lines)."""
    got = catalog.from_english("progress", stage, lang)
    if got is None:
        raise catalog.CatalogError(f"texts.yaml has no progress line {stage!r}")
    return got


CLOSE_RATIO = 50  # wrong elements at most this many times the tolerance away: rounding, not a wrong formula
CLOSE_SHARE = 0.05  # ... and the worst error at most this share of the output's largest value


def close_to_reference(d: dict) -> bool:
    """Every wrong value within a few times the tolerance (and finite) and small beside the output's own scale:
    the error of a lower precision. A merge with the wrong exponent base is 36x an fp16 tolerance away but as large
    as the value itself: that is a wrong formula, and the report must not call it rounding."""
    r = d.get("error_ratio")
    if r is None or r > CLOSE_RATIO or d.get("mistake"):
        return False
    scale, err = d.get("ref_scale"), d.get("max_abs_err")
    return scale is None or err is None or err <= CLOSE_SHARE * scale


def tensor_role(viol: dict, out_shape) -> str | None:
    """The spec's name for the tensor an access touched: an argument ("input a" -> "a"), or "out" for an allocation
    of the output's shape."""
    name = viol.get("tensor") or ""
    if name.startswith("input "):
        return name.removeprefix("input ")
    shape = (viol.get("access") or {}).get("tensor_shape")
    return "out" if out_shape is not None and shape == list(out_shape) else None


def dim_name(spec, role, dim: int) -> str:
    names = spec.dims.get(role) or ()
    return names[dim] if dim < len(names) else f"dim {dim}"


def axis_words(spec, d: dict, cat: str, lang: str):
    """(message key, format words) for an out-of-bounds access described per tile axis (grader.watch.access):
    which dimension of which tensor went out of range, how far, and whether the access has a mask at all. None for a
    drill whose spec names no dims: "dim 0" is not the drill's word, and its category's own text is (offsets < n)."""
    if not spec.dims:
        return None
    viol = d["violation"]
    role = tensor_role(viol, d.get("out_shape"))
    tensor = f"`{viol['tensor'].removeprefix('input ')}`"
    if role == "out" and not viol["tensor"].startswith("input "):
        tensor = phrase("the_output", lang, tensor=tensor)
    base = {"kind": f"tl.{viol['kind']}", "line": viol.get("line") or "?", "tensor": tensor,
            "lanes": viol["lanes"], "program": viol["program"]}
    if cat != "mask":
        row = swapped_axis(viol)
        if row is None:
            return None
        return "strides-swap", {**base, "ref": role or "x", "axis": row["axis"], "extent": row["extent"], "dim": row["dim"],
                                "dimname": dim_name(spec, role, row["dim"]), "size": row["size"],
                                "other_dim": row["other_dim"], "other": dim_name(spec, role, row["other_dim"])}
    row = mask_axis(viol)
    if row is None:
        return None
    name = dim_name(spec, role, row["dim"])
    if viol.get("unmasked"):
        has = phrase("mask_none", lang)
    elif row["last"] == row["size"]:
        has = phrase("mask_one_past", lang, size=row["size"], name=name)
    else:
        has = phrase("mask_no_term", lang, name=name)
    loop = ""
    out_dims = spec.dims.get("out") or ()
    if row["first"] > 0 and name not in out_dims and spec.dims:  # a reduced dim (K): walked by a loop
        loop = phrase("mask_loop", lang, name=name)
    return "mask-axis", {**base, "has": has, "dim": row["dim"], "dimname": name, "size": row["size"],
                         "first": row["first"], "last": row["last"], "loop": loop}


def mask_source_line(lines: list[str], line: int | None) -> int | None:
    """Where the mask of the tl.load / tl.store at `line` is computed, when it is a name assigned on an earlier line
    of the same function (`mask = cols <= N` ... `tl.load(p, mask=mask)`): the comparison to fix is there."""
    import ast

    if not line:
        return None
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return None
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or not (
                fn.lineno <= line <= (fn.end_lineno or fn.lineno)):
            continue
        name = None
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and node.lineno <= line <= (node.end_lineno or node.lineno) and \
                    isinstance(node.func, ast.Attribute) and node.func.attr in ("load", "store"):
                for k in node.keywords:
                    if k.arg == "mask" and isinstance(k.value, ast.Name):
                        name = k.value.id
        if name is None:
            return None
        best = None
        for node in ast.walk(fn):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            if targets and node.lineno < line and any(isinstance(t, ast.Name) and t.id == name for t in targets):
                best = max(best or 0, node.lineno)
        return best
    return None


def source_excerpt(lines: list[str], line: int | None, context: int = 1, also: int | None = None) -> Table | None:
    """The lines around LINE with a gutter (arrow, number, bar); a long line folds under its own bar, never
    into the gutter. `also` (a line a few lines away, e.g. the access whose mask is built at `line`) is shown too,
    marked with ·."""
    if not line or line < 1 or line > len(lines):
        return None
    lo, hi = line - context, line + context
    if also and abs(also - line) <= 6:
        lo, hi = min(lo, also), max(hi, also)
    out = Table(show_header=False, box=None, padding=(0, 0), pad_edge=False, expand=False)
    out.add_column(no_wrap=True)
    out.add_column(overflow="fold")
    for n in range(max(1, lo), min(len(lines), hi) + 1):
        mark = "➜" if n == line else "·" if n == also else " "
        style = "bold yellow" if n == line else "yellow" if n == also else "dim"
        out.add_row(Text(f"  {mark} {n:4d} │ ", style=style), Text(lines[n - 1].expandtabs(4), style=style))
    return out


CODE = re.compile(r"\b\w+(\[[^\]]*\])?\s*=\s*[\w(\[]|\b\w+\s*[<>]=?\s*\w|\btl\.\w+\(|\w\([^)]*\w[^)]*\)")


def gives_code(fix: str) -> bool:
    """Does this fix hand over code (an assignment, a comparison, a call), not only say what is wrong?"""
    return bool(CODE.search(fix))


def tile_map_2d(grid: dict, lang: str) -> Text:
    """One cell per BLOCK_M x BLOCK_N tile of a 2-D output, one line per row of tiles (a GEMM's C)."""
    (m, n), (bm, bn), cols = grid["shape"], grid["block"], grid["cols"]
    out = Text()
    out.append("  " + t("tiles_2d", lang, m=m, n=n, bm=bm, bn=bn, rows=grid["rows"], cols=cols) + "\n")
    for r in range(grid["rows"]):
        out.append(f"  {r * bm:>6} ")
        for c in grid["status"][r * cols:(r + 1) * cols]:
            sym, style = TILE_STYLE[c]
            out.append(sym, style=style)
        out.append("\n")
    out.append("         " + t("legend", lang) + "\n", style="dim")
    return out


def tile_map(tiles: dict, numel: int, lang: str, title: str | None = None) -> Text:
    status = tiles["status"]
    group = 1
    while len(status) / group > MAX_CELLS:
        group *= 2
    if group > 1:  # each cell stands for `group` tiles: show the worst of them
        order = "!.xo"
        status = "".join(min(status[i:i + group], key=order.index) for i in range(0, len(status), group))
    out = Text()
    out.append("  " + (title or t("tiles", lang, n=numel, block=tiles["block"], tiles=len(tiles["status"]))) +
               (phrase("cell_groups", lang, group=group) if group > 1 else "") + "\n")
    for i in range(0, len(status), TILE_ROW):
        out.append(f"  {i * group:>6} ")
        for c in status[i:i + TILE_ROW]:
            sym, style = TILE_STYLE[c]
            out.append(sym, style=style)
        out.append("\n")
    out.append("         " + t("legend", lang) + "\n", style="dim")
    return out


def probe_name(spec, name, lang: str):
    """A probe's label in the learner's language: its name_zh under zh where the spec gives one."""
    if lang == "zh" and name:
        for p in getattr(spec, "probes", None) or ():
            if p.name == name and p.name_zh:
                return p.name_zh
    return name


def sizes_row(cases: list[dict], spec=None, lang: str = "en") -> Text:
    out = Text("  ")
    for c in cases:
        size = c["size"] if isinstance(c["size"], int) else "x".join(map(str, c["size"]))
        probe = probe_name(spec, c.get("probe"), lang)
        label = f"{size}" + (f"({probe})" if probe else "") + (
            f"[{c['config']}]" if c.get("config") else "") + (
            "@cuda" if c["device"] == "cuda" else "")
        if c["failed"]:
            out.append(f"{label} ✗ {'/'.join(c['categories'])}", style="red")
        else:
            out.append(f"{label} ✓", style="green")
        out.append("   ")
    return out


def skipped_line(skipped: list[dict], lang: str, spec=None) -> Text:
    """Calls left out to stay within the interpreter's time budget: which sizes, and why."""
    sizes = []
    for c in skipped:
        label = c["size"] if isinstance(c["size"], int) else "x".join(map(str, c["size"]))
        probe = probe_name(spec, c.get("probe"), lang)
        label = f"{label}" + (f"({probe})" if probe else "")
        if label not in sizes:
            sizes.append(label)
    worst = max(c["skipped"]["estimate_s"] for c in skipped)
    return Text("  " + t("skipped", lang, n=len(skipped), sizes=", ".join(sizes), estimate=worst), style="yellow")


def render(v, lang: str, show_fix: bool = True) -> Group:
    """show_fix=False: a fix that hands over code is held back (progressive disclosure); what is wrong and where
    is always said."""
    spec = get_spec(v.drill)
    parts = []
    head = Text()
    head.append(f"{v.file}", style="bold")
    head.append(f"  ·  drill {v.drill}  ·  {v.device}")
    parts.append(head)
    verdict = Text()
    if v.passed:
        verdict.append(f" {t('pass', lang)} ", style="bold white on green")
        verdict.append(f"  {v.drill}")
        parts.append(verdict)
    else:
        what, fix = explain(v, lang)
        verdict.append(f" {t('fail' if getattr(v, 'graded', True) else 'no_verdict', lang)} ",
                       style="bold white on red" if getattr(v, "graded", True) else "bold black on yellow")
        verdict.append(f"  {v.diagnosis}", style="bold red")
        if v.hole and v.diagnosis != "hole":
            verdict.append(phrase("hole_label", lang, hole=v.hole), style="yellow")
        verdict.append(f" — {what}")
        parts.append(verdict)
        mask_line = mask_source_line(v.source_lines, v.line) if v.diagnosis == "mask" else None
        excerpt = source_excerpt(v.source_lines, mask_line, also=v.line) if mask_line else \
            source_excerpt(v.source_lines, v.line)
        if excerpt is not None:
            parts.append(excerpt)
        if fix and (show_fix or not gives_code(fix)):
            parts.append(Text(f"  {t('fix', lang)}: {fix}", style="cyan"))
        elif fix:  # "the line above" only when a line is shown
            held = "fix_held" if excerpt is not None else "fix_held_no_line"
            parts.append(Text(f"  {t('fix', lang)}: {t(held, lang, drill=v.drill)}", style="cyan"))
    focus = v.focus or {}
    if v.cases:
        parts.append(Text(t("sizes", lang) + ":", style="bold"))
        parts.append(sizes_row(v.cases, spec, lang))
    if v.skipped:
        parts.append(skipped_line(v.skipped, lang, spec))
    if getattr(v, "unchecked", None) and v.diagnosis != "not-checked":  # CPU limitation: graded on the rest
        parts.append(Text("  " + t("unchecked", lang, n=len(v.unchecked), reason=check_detail(v.unchecked[0]["unchecked"]["reason"], lang)),
                          style="yellow"))
    grid2d = focus.get("tiles_2d")
    if grid2d and grid2d["cols"] <= TILE_ROW and len(grid2d["status"]) <= MAX_CELLS:
        parts.append(tile_map_2d(grid2d, lang))
    elif focus.get("row_map"):  # a row kernel: one cell per row, as its programs are
        rm = focus["row_map"]
        parts.append(tile_map({"status": rm["status"], "block": rm["cols"]}, focus.get("numel", 0), lang,
                              title=t("tiles_rows", lang, rows=rm["rows"], cols=rm["cols"])))
    elif focus.get("tiles") and len(focus["tiles"]["status"]) > 0 and focus["tiles"].get("flat", True):
        parts.append(tile_map(focus["tiles"], focus.get("numel", 0), lang))
    fb = focus.get("first_bad")
    if fb:
        got = t("never_written", lang) if fb["unwritten"] else f"{fb['got']:.7g}"
        ins = ", ".join(f"{k}={val:.7g}" for k, val in fb["inputs"].items())
        parts.append(Text(f"  {t('first_bad', lang)}: out[{', '.join(map(str, fb['index']))}]  "
                          f"{t('expected', lang)} {fb['expected']:.7g}, {t('got', lang)} {got}"
                          + (f"   ({ins})" if ins else "")))
    if focus.get("stored_sentinel"):
        parts.append(Text("  " + t("stored_sentinel", lang, n=focus["stored_sentinel"])))
    if v.others:
        parts.append(Text(f"  {t('also_seen', lang)}: {', '.join(v.others)}", style="dim"))
    for render_parts in registry.hooks(spec, "render_parts"):  # the families' sections: bytes proof, speed table,
        parts.extend(render_parts(v, spec, lang))              # device limits, gradients, compile evidence
    if v.checks:
        table = Table(show_header=False, box=None, padding=(0, 1))
        for c in v.checks:
            table.add_row("✓" if c["passed"] else "✗", check_name(c["name"], lang), Text(row_detail(c, lang), style="dim"),
                          style=None if c["passed"] else "red")
        parts.append(Text(t("checks", lang) + ":", style="bold"))
        parts.append(table)
    printed, cut = learner_output.tail(v)
    if printed:  # the learner's own prints, whatever the verdict (drill's frames taken out)
        head = t("learner_output", lang) + (f" ({t('learner_output_cut', lang, n=cut)})" if cut else "")
        parts.append(Text(f"  {head}:", style="bold"))
        shown = Table(show_header=False, box=None, padding=(0, 0), pad_edge=False)
        shown.add_column(no_wrap=True)
        shown.add_column(overflow="fold")  # a long printed line folds under its bar, not into the margin
        for ln in printed.splitlines():
            shown.add_row(Text("    │ ", style="dim"), Text(ln.expandtabs(4), style="dim"))
        parts.append(shown)
    if v.device == "cpu" and v.cases:  # only when calls actually ran
        parts.append(Text(t("interpreter_note", lang), style="italic dim"))
    elif v.info.get("cuda") and v.cases:
        parts.append(Text(t("cuda_note", lang, name=v.info["cuda"].get("device_name") or "CUDA"),
                          style="italic dim"))
        if v.info["cuda"].get("autotune_picked"):
            parts.append(Text(t("autotune_picked", lang, config=v.info["cuda"]["autotune_picked"]), style="dim"))
    parts.append(Text(t("elapsed", lang, s=v.elapsed_s), style="dim"))
    if v.passed:
        cps = checkpoints_for(v.drill)
        if cps:
            parts.append(Text(t("say_it", lang), style="bold"))
            for i, (cid, cp) in enumerate(cps, 1):
                parts.append(Text(f"  {i}. {pick(cp.get('question'), lang)}  [{cid}]"))
    return Group(*parts)


def print_verdict(v, lang: str, console: Console, show_fix: bool = True) -> None:
    console.print(render(v, lang, show_fix))


def gcc_lines(v, lang: str) -> list[str]:
    """`file:line:col: error: message` lines (vim's quickfix, VS Code's $gcc problem matcher): one per hole left,
    else one for the diagnosis at its line; nothing for a pass."""
    if v.passed:
        return []

    def col(n: int | None) -> int:
        if not n or n > len(v.source_lines):
            return 1
        text = v.source_lines[n - 1]
        return len(text) - len(text.lstrip()) + 1

    what, fix = explain(v, lang)
    if v.diagnosis == "hole":
        out = []
        for h in (v.detail or {}).get("holes") or [{"name": v.hole, "line": v.line}]:
            text = v.source_lines[h["line"] - 1] if h.get("line") and h["line"] <= len(v.source_lines) else ""
            c = text.find("HOLE(") + 1 if "HOLE(" in text else col(h.get("line"))
            out.append(f"{v.file}:{h.get('line') or 1}:{c}: error: {phrase('gcc_hole', lang, name=h['name'])} [hole]")
        return out
    message = " ".join(what.split())
    lines = [f"{v.file}:{v.line or 1}:{col(v.line)}: error: {message} [{v.diagnosis}]"]
    if fix and not gives_code(fix):
        lines.append(f"{v.file}:{v.line or 1}:{col(v.line)}: note: {' '.join(fix.split())}")
    return lines


def verdict_json(v) -> str:
    return json.dumps(v.to_json(), indent=2, default=str)
