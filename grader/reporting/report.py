"""Render a verdict for a person: what is wrong, where (the line, the tiles, the first bad element), and the fix."""
from __future__ import annotations

import json

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from drills import get_spec
from grader.reporting import compiled_report
from grader.reporting import fusion_report
from grader.reporting import limits_report
from grader.reporting.i18n import DIAGNOSES, check_name, pick, t
from grader.reporting.texts import checkpoints_for

TILE_STYLE = {"o": ("■", "green"), "x": ("✗", "red"), ".": ("·", "grey50"), "!": ("!", "bold magenta")}
TILE_ROW = 50
MAX_CELLS = 256


def _fmt(template: str, **kw) -> str:
    class Missing(dict):
        def __missing__(self, key):
            return "?"
    return template.format_map(Missing(kw))


def explain(v, lang: str) -> tuple[str, str]:
    """(what is wrong, the fix) for the verdict's diagnosis, in the learner's language."""
    d, cat = v.detail or {}, v.diagnosis
    spec = get_spec(v.drill)
    entry = spec.entry
    key = cat
    kw: dict = {"drill": v.drill, "entry": entry, "signature": spec.signature}
    limited = limits_report.what_and_fix(v, spec, lang, _fmt)  # a device's launch limits (grader/families/limits.py)
    if limited:
        return limited
    lab = compiled_report.what_and_fix(v, spec, lang, _fmt)  # a compile lab (grader/families/compiled.py)
    if lab:
        return lab
    if cat == "hole":
        holes = d.get("holes", [])
        first = holes[0] if holes else {"name": v.hole, "line": v.line}
        rest = sorted({f"{h['name']}" for h in holes[1:] if h["name"] != first["name"]})
        more_lines = [str(h["line"]) for h in holes[1:]]
        zh = lang == "zh"
        kw.update(name=first["name"], line=first["line"],
                  more=((f"；还有 {', '.join(rest)}" if zh else f"; also {', '.join(rest)}") if rest else "") +
                       ((f"（另见第 {', '.join(more_lines)} 行）" if zh else f" (lines {', '.join(more_lines)})")
                        if more_lines else ""))
    elif cat in ("error", "crash") and d.get("exception"):
        e = d["exception"]
        stage = {"import": "importing the file", "entry": "finding the entry point",
                 "grade": "the grader itself failed (a bug in drill, not in your file; please report it)"
                 }.get(d.get("stage"), f"calling `{entry}`")
        if e.get("type") == "SyntaxError":
            stage = "syntax"
        if e.get("compiler"):
            key = "error-compiler"
            kw["kernel"] = e.get("kernel")
        msg = e.get("message", "")
        if e.get("type") == "MissingEntry":
            found = e.get("found") or []
            msg = f"no function `{entry}`" + (f" (found: {', '.join(found)})" if found else "")
            key = "missing-entry"
            kw["found"] = ", ".join(found) or "none"
        kw.update(stage=stage, type=e.get("type", "?"), message=msg.splitlines()[0] if msg else "",
                  signal="CUDA illegal memory access" if cat == "crash" else "")
        if cat == "crash":
            kw["signal"] = msg.splitlines()[0] if msg else "CUDA fault"
    elif cat == "error" and "returned" in d:
        kw.update(stage=f"calling `{entry}`", type="TypeError",
                  message=f"returned {d['returned']}, expected a torch.Tensor")
    elif cat == "crash":
        kw.update(signal=d.get("signal") or f"exit code {d.get('returncode')}", returncode=d.get("returncode"))
        if not d.get("signal"):
            key = "crash-exit"
        elif d.get("device") == "cpu":
            key = "crash-cpu"
    elif cat == "timeout":
        kw.update(seconds=d.get("seconds"), device=d.get("device"))
        if d.get("budget"):
            key = "timeout-budget"
            size = d.get("size")
            kw.update(size=size if isinstance(size, int) else "x".join(map(str, size or [])),
                      estimate=d.get("estimate_s"), programs=d.get("programs") or "?")
    elif cat == "torch-fallback":
        kw["ops"] = ", ".join(sorted({o["op"] for o in d.get("ops", [])}))
    elif cat == "fusion":
        kw.update(launches=d.get("launches"), expected=d.get("expected"), kernels=", ".join(d.get("kernels", [])))
        if d.get("bytes_moved"):
            key = "fusion-stored" if d.get("stored_only") else "fusion-bytes"
            kw.update(fusion_report.bytes_kw(d, spec))
    elif cat in ("too-slow", "impossible-time") or d.get("timing"):
        kw.update(fusion_report.timing_kw(d), numel=d.get("numel"), wrong=d.get("wrong"), unwritten=0)
        if d.get("flops") and cat in ("too-slow", "impossible-time"):  # matmul, attention: FLOPs, not bytes
            key = f"{cat}-compute"
    elif cat in ("dtype", "shape"):
        kw.update(got=d.get("got"), expected=d.get("expected"), device=d.get("device"))
        if cat == "shape" and d.get("no_device"):
            key = "shape-device"
            kw.update(line=d["no_device"].get("line") or "?", tensor=d["no_device"].get("tensor"))
        elif cat == "shape" and d.get("strides"):
            key = "shape-layout"
            kw.update(strides=tuple(d["strides"]), expected_strides=tuple(d.get("expected_strides") or ()))
    elif cat == "input-mutated":
        kw.update(**d["inputs"][0])
        if d.get("returned_input"):
            key = "input-returned"
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
                  program=viol["program"], kind=f"tl.{viol['kind']}", probe=d.get("probe"))
    elif d.get("violation"):  # an out-of-bounds address that is not a tail overrun: index arithmetic
        viol = d["violation"]
        key = "oob-index"
        where = {"before": "before the start of", "after": "past the end of", "mixed": "outside"}[viol["side"]]
        if viol.get("inside_no_tensor"):
            where = "outside every tensor (the nearest is"
        kw.update(kind=f"tl.{viol['kind']}", lanes=viol["lanes"], tensor=viol["tensor"], first=viol["first_elem"],
                  numel=viol["numel"], program=viol["program"], where=where,
                  close=")" if viol.get("inside_no_tensor") else "")
    elif cat == "offsets":
        if d.get("guard"):
            what = f"{d['guard']['before']} elements before the start of `{d['guard']['tensor']}` were overwritten"
        elif d.get("duplicates"):
            what = f"{d['duplicates']} elements were written by more than one program" + (
                f", {d['unwritten']} never written" if d.get("unwritten") else "")
        else:
            what = f"{d.get('unwritten')} of {d.get('numel')} elements never written, in most tiles"
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
        if d.get("masked_load"):
            key = "masked-other"
            kw.update(line=d["masked_load"]["line"], other=d["masked_load"]["other"], lanes=d["masked_load"]["lanes"])
        if cat == "autotune":
            kw["problem"] = pick(DIAGNOSES["autotune-problem"].get(d.get("problem"), d.get("problem")), lang)
            kw["labels"] = "; ".join(d.get("labels") or []) or "-"
    elif cat in ("unwritten", "wrong-values", "strides", "k-loop", "epilogue", "scale", "causal", "rescale"):
        kw.update(unwritten=d.get("unwritten"), numel=d.get("numel"), wrong=d.get("wrong"), probe=d.get("probe"),
                  mistake=(d.get("mistake") or {}).get("name") or "a known mistake", configs=d.get("configs"))
        if d.get("tuning"):  # right with each config pinned, wrong once the autotuner's benchmark runs happened
            key = "wrong-values-tuning"
    if d.get("returned_input") and key == cat:
        key = "returned-input"
        kw["tensor"] = d["returned_input"]
    # Most specific first: the key (its 2-D variant in 2-D drills), then the category (likewise).
    keys = [f"{key}-2d", key, f"{cat}-2d", cat] if spec.two_d else [key, cat]
    what = next((DIAGNOSES[k]["what"] for k in keys if "what" in DIAGNOSES.get(k, {})), cat)
    fix = next((DIAGNOSES[k]["fix"] for k in keys if "fix" in DIAGNOSES.get(k, {})), "")
    return _fmt(pick(what, lang), **kw), _fmt(pick(fix, lang), **kw)


def source_excerpt(lines: list[str], line: int | None, context: int = 1) -> Text | None:
    if not line or line < 1 or line > len(lines):
        return None
    out = Text()
    for n in range(max(1, line - context), min(len(lines), line + context) + 1):
        mark = "➜" if n == line else " "
        style = "bold yellow" if n == line else "dim"
        out.append(f"  {mark} {n:4d} │ {lines[n - 1]}\n", style=style)
    return out


def tile_map_2d(grid: dict, lang: str) -> Text:
    """One cell per BLOCK_M x BLOCK_N tile of a 2-D output, one line per row of tiles (a matmul's C)."""
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


def tile_map(tiles: dict, numel: int, lang: str) -> Text:
    status = tiles["status"]
    group = 1
    while len(status) / group > MAX_CELLS:
        group *= 2
    if group > 1:  # each cell stands for `group` tiles: show the worst of them
        order = "!.xo"
        status = "".join(min(status[i:i + group], key=order.index) for i in range(0, len(status), group))
    out = Text()
    out.append("  " + t("tiles", lang, n=numel, block=tiles["block"], tiles=len(tiles["status"])) +
               (f", 1 cell = {group} tiles" if group > 1 else "") + "\n")
    for i in range(0, len(status), TILE_ROW):
        out.append(f"  {i * group:>6} ")
        for c in status[i:i + TILE_ROW]:
            sym, style = TILE_STYLE[c]
            out.append(sym, style=style)
        out.append("\n")
    out.append("         " + t("legend", lang) + "\n", style="dim")
    return out


def sizes_row(cases: list[dict]) -> Text:
    out = Text("  ")
    for c in cases:
        size = c["size"] if isinstance(c["size"], int) else "x".join(map(str, c["size"]))
        label = f"{size}" + (f"({c['probe']})" if c.get("probe") else "") + (
            f"[{c['config']}]" if c.get("config") else "") + (
            "@cuda" if c["device"] == "cuda" else "")
        if c["failed"]:
            out.append(f"{label} ✗ {'/'.join(c['categories'])}", style="red")
        else:
            out.append(f"{label} ✓", style="green")
        out.append("   ")
    return out


def skipped_line(skipped: list[dict], lang: str) -> Text:
    """Calls left out to stay within the interpreter's time budget: which sizes, and why."""
    sizes = []
    for c in skipped:
        label = c["size"] if isinstance(c["size"], int) else "x".join(map(str, c["size"]))
        label = f"{label}" + (f"({c['probe']})" if c.get("probe") else "")
        if label not in sizes:
            sizes.append(label)
    worst = max(c["skipped"]["estimate_s"] for c in skipped)
    return Text("  " + t("skipped", lang, n=len(skipped), sizes=", ".join(sizes), estimate=worst), style="yellow")


def render(v, lang: str) -> Group:
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
        verdict.append(f" {t('fail', lang)} ", style="bold white on red")
        verdict.append(f"  {v.diagnosis}", style="bold red")
        if v.hole and v.diagnosis != "hole":
            verdict.append(f"  (hole: {v.hole})", style="yellow")
        verdict.append(f" — {what}")
        parts.append(verdict)
        excerpt = source_excerpt(v.source_lines, v.line)
        if excerpt is not None:
            parts.append(excerpt)
        if fix:
            parts.append(Text(f"  {t('fix', lang)}: {fix}", style="cyan"))
    focus = v.focus or {}
    if v.cases:
        parts.append(Text(t("sizes", lang) + ":", style="bold"))
        parts.append(sizes_row(v.cases))
    if v.skipped:
        parts.append(skipped_line(v.skipped, lang))
    grid2d = focus.get("tiles_2d")
    if grid2d and grid2d["cols"] <= TILE_ROW and len(grid2d["status"]) <= MAX_CELLS:
        parts.append(tile_map_2d(grid2d, lang))
    elif focus.get("tiles") and len(focus["tiles"]["status"]) > 0:
        parts.append(tile_map(focus["tiles"], focus.get("numel", 0), lang))
    fb = focus.get("first_bad")
    if fb:
        got = t("never_written", lang) if fb["unwritten"] else f"{fb['got']:.7g}"
        ins = ", ".join(f"{k}={val:.7g}" for k, val in fb["inputs"].items())
        parts.append(Text(f"  {t('first_bad', lang)}: out[{', '.join(map(str, fb['index']))}]  "
                          f"{t('expected', lang)} {fb['expected']:.7g}, {t('got', lang)} {got}"
                          + (f"   ({ins})" if ins else "")))
    if v.others:
        parts.append(Text(f"  {t('also_seen', lang)}: {', '.join(v.others)}", style="dim"))
    parts.extend(fusion_report.render_parts(v, get_spec(v.drill), lang))
    parts.extend(limits_report.render_parts(v, get_spec(v.drill), lang))
    parts.extend(compiled_report.render_parts(v, get_spec(v.drill), lang))
    if v.checks:
        table = Table(show_header=False, box=None, padding=(0, 1))
        for c in v.checks:
            table.add_row("✓" if c["passed"] else "✗", check_name(c["name"], lang), Text(str(c.get("detail") or ""), style="dim"),
                          style=None if c["passed"] else "red")
        parts.append(Text(t("checks", lang) + ":", style="bold"))
        parts.append(table)
    out = next((r["output"] for r in v.runs if r.get("output") and not v.passed), "")
    if out.strip() and v.diagnosis in ("error", "crash", "timeout"):
        tail = "\n".join(out.strip().splitlines()[-8:])
        parts.append(Text(f"  {t('learner_output', lang)}:\n" + "\n".join("    " + ln for ln in tail.splitlines()),
                          style="dim"))
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


def print_verdict(v, lang: str, console: Console) -> None:
    console.print(render(v, lang))


def verdict_json(v) -> str:
    return json.dumps(v.to_json(), indent=2, default=str)
