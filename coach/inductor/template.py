"""`drill inductor` for a drill compiled with a mode and Inductor settings of its own (spec.compile_options, e.g.
max-autotune with Triton GEMM templates only): the template kernel's pieces named, the settings and why, what the
autotuner measured, the second compile's pick (cuBLAS or the template, on CUDA), and what a CPU cannot show.

Nothing here names a drill: each part renders when the capture holds its data (coach/inductor/child.py records it).
Pure functions over the capture dict and the parsed kernels (coach/inductor/capture.py).
"""
from __future__ import annotations

import re

from grader.reporting.i18n import pick
from coach.inductor import capture as ind
from grader.core import catalog

NOTES = catalog.section("coach.inductor_template_notes")  # texts.yaml
# Side by side, in the order a matmul is read.
ROWS = ("program", "tile", "group", "offsets", "wrap", "acc", "k-loop", "load", "k-mask", "dot", "edge-mask", "epilogue-load",
        "epilogue-add", "relu", "store")

T = catalog.section("coach.inductor_template")  # texts.yaml


def _t(key: str, lang: str, **kw) -> str:
    return T[key][lang].format(**kw)


def is_matmul(kernel: ind.Kernel) -> bool:
    return any(p.kind == "dot" for p in kernel.pieces)


def note(piece: ind.Piece, lang: str) -> str | None:
    entry = NOTES.get(piece.kind)
    return pick(entry, lang).format(ptr=piece.pointer or "?") if entry else None


def constexprs(kernel: ind.Kernel) -> dict:
    """`NAME : tl.constexpr = 16` and `M = 127` lines of a template: the config and shapes Inductor baked in."""
    found = {}
    for line in kernel.shown.split("\n"):
        m = re.match(r"\s*([A-Z_][A-Z0-9_]*)\s*(?::\s*tl\.constexpr\s*)?=\s*(\d+)\s*$", line)
        if m:
            found[m.group(1)] = int(m.group(2))
    return found


def template_launch(kernel: ind.Kernel, lang: str) -> str | None:
    c = constexprs(kernel)
    try:
        m, n, k, bm, bn, bk = (c[x] for x in ("M", "N", "K", "BLOCK_M", "BLOCK_N", "BLOCK_K"))
    except KeyError:
        return None
    gm, gn = -(-m // bm), -(-n // bn)
    return _t("template_launch", lang, programs=gm * gn, m=m, n=n, bm=bm, bn=bn, gm=gm, gn=gn, k=k, bk=bk)


def extern_lines(codes: list[str]) -> list[str]:
    """The wrapper's calls to library kernels (`extern_kernels.addmm(...)`) in call()."""
    found = []
    for code in codes:
        lines = code.split("\n")
        start = next((i for i, l in enumerate(lines) if re.match(r"\s*def call\(", l)), None)
        for line in lines[start or 0:] if start is not None else []:
            if "extern_kernels." in line:
                found.append(line.strip())
    return found


def gemm_outcome(codes: list[str]) -> dict:
    """What a compile chose for its matmul: template kernels (`triton_tem_...`), library calls, other kernels."""
    kernels = [k for code in codes for k in ind.extract_kernels(code)]
    externs = [m.group(1) for line in extern_lines(codes) for m in re.finditer(r"extern_kernels\.(\w+)\(", line)]
    tem = [k.name for k in kernels if ind.decode_kernel_name(k.name).get("category") == "tem"]
    return {"templates": tem, "externs": externs, "others": [k.name for k in kernels if k.name not in tem]}


def _short(description: str) -> str:
    keep = ("BLOCK_M", "BLOCK_N", "BLOCK_K", "num_warps", "num_stages")
    parts = dict(p.strip().split("=", 1) for p in description.split(",") if "=" in p)
    return " ".join(f"{k}={parts[k]}" for k in keep if k in parts) or description[:60]


def _ms(ms) -> str:
    if ms is None:
        return "failed"
    return f"{ms * 1000:.1f} µs" if ms < 1 else f"{ms:.1f} ms" if ms < 1000 else f"{ms / 1000:.2f} s"


def choice_kind(class_name: str, lang: str) -> str:
    """What an autotuning choice is, from its class in torch._inductor.select_algorithm."""
    if class_name.startswith("TritonTemplateCaller"):
        return _t("template_kind", lang)
    if class_name == "ExternKernelCaller":
        return _t("extern_kind", lang)
    return class_name or "?"


def autotune_table(op: dict, lang: str, interpreted: bool, top: int = 6) -> list[str]:
    choices = op.get("choices") or []
    best = next((c["ms"] for c in choices if c.get("ms")), None)
    more = f" (+{len(choices) - top})" if len(choices) > top else ""
    lines = [_t("autotune_title", lang, op=op.get("op"), inputs=", ".join(op.get("inputs") or []), n=len(choices),
                more=more) + (_t("autotune_interp", lang) if interpreted else "")]
    for i, c in enumerate(choices[:top]):
        kind = choice_kind(c.get("kind", ""), lang)
        pct = f"{100 * best / c['ms']:5.1f} %" if best and c.get("ms") else "     "
        mark = f"  ← {_t('picked', lang)}" if i == 0 else ""
        lines.append(f"  {c['name']:<14} {_ms(c.get('ms')):>10} {pct}  {kind}: {_short(c.get('description', ''))}"
                     f"{mark}")
    return lines


def settings_lines(compile: dict | None, lang: str) -> list[str]:
    if not compile:
        return []
    lines = [_t("settings", lang, mode=compile.get("mode"), options=compile.get("options"))]
    for key, value in (compile.get("interpreter_overrides") or {}).items():
        why = T.get(f"why_{key}")
        lines.append("  " + _t("override", lang, setting=key, value=value, why=pick(why, lang) if why else "?"))
    if compile.get("ignored"):
        lines.append("  " + _t("ignored", lang, keys=", ".join(compile["ignored"])))
    return lines


def _fmt_s(s) -> str:
    if s is None:
        return "?"
    return f"{s * 1000:.1f} ms" if s < 1 else f"{s:.2f} s"


def compare_lines(compare: dict, lang: str) -> list[str]:
    if compare.get("error"):
        e = compare["error"]
        return [_t("compare_error", lang, type=e.get("type"), message=e.get("message"))]
    options = (compare.get("compile") or {}).get("options") or {}
    shown = {k: v for k, v in options.items() if k not in ("max_autotune", "coordinate_descent_tuning")}
    lines = [_t("compare_title", lang, options=shown or _t("compare_defaults", lang))]
    for op in compare.get("autotune") or []:
        lines += ["  " + l for l in autotune_table(op, lang, interpreted=False)]
    if compare.get("fusion_benchmarks"):
        lines.append("  " + _t("fusion_bench", lang))
        lines += [f"    {m}" for m in compare["fusion_benchmarks"]]
    outcome = gemm_outcome(compare.get("codes") or [])
    if outcome["templates"]:
        lines.append("  " + _t("compare_template", lang, kernels=", ".join(outcome["templates"])))
    elif outcome["externs"]:
        lines.append("  " + _t("compare_extern", lang, externs=", ".join(outcome["externs"]),
                               kernels=", ".join(outcome["others"]) or _t("compare_nothing", lang)))
    lines.append("  " + _t("compare_timing", lang, first=_fmt_s(compare.get("first_call_s")),
                           second=_fmt_s(compare.get("second_call_s"))))
    return lines


def render(capture: dict, kernels: list, lang: str, out) -> None:
    """Everything this module adds below the kernels; nothing for a plain compile."""
    compile = capture.get("compile")
    externs = extern_lines(capture.get("codes") or [])
    if not compile and not externs:
        return
    out.print()
    failed = capture.get("options_failed")
    if failed:
        message = next((l.strip() for l in str(failed.get("message", "")).split("\n") if l.strip()), "")
        out.print(_t("options_failed", lang, options=failed.get("options"), type=failed.get("type"),
                     message=message), markup=False, style="yellow")
        out.print(_t("options_retry", lang, options=(compile or {}).get("options")), markup=False)
    for line in settings_lines(compile, lang):
        out.print(line, markup=False)
    if externs:
        out.print(_t("externs", lang), style="bold")
        for line in externs:
            call = re.search(r"extern_kernels\.(\w+)\(", line)
            what = T.get(f"extern_{call.group(1)}") if call else None
            out.print(f"  {line}" + (f"   ← {pick(what, lang)}" if what else ""), markup=False)
    interpreted = capture.get("path") == "cpu-triton-interpreter"
    if compile and compile.get("options", {}).get("max_autotune"):
        ops = capture.get("autotune") or []
        for op in ops:
            out.print()
            for line in autotune_table(op, lang, interpreted):
                out.print(line, markup=False)
        if not ops:
            hit = (capture.get("fx_graph_cache") or {}).get("hit")
            why = _t("autotune_none_cache" if hit else "autotune_none_single", lang)
            out.print(_t("autotune_none", lang, why=why), markup=False)
        for m in capture.get("fusion_benchmarks") or []:
            out.print(f"  {m}", markup=False)
    if capture.get("compare"):
        out.print()
        for line in compare_lines(capture["compare"], lang):
            out.print(line, markup=False)
    path = capture.get("path")
    if path in ("cpu-triton-interpreter", "cpu-cpp") and compile and compile.get("options", {}).get("max_autotune"):
        has_template = any(is_matmul(k) for k in kernels if k.lang == "triton")
        if (path == "cpu-cpp" and externs) or has_template:
            out.print()
            out.print(_t("cpu_title", lang), style="bold")
            out.print(_t("cpu_triton", lang, drill=capture.get("drill")) if has_template else _t("cpu_cpp", lang),
                      markup=False)
