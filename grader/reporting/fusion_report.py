"""Report parts for fused drills: the bytes proof, the speed table (CUDA), the launch-bound note."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text

from grader.core import catalog
from grader.reporting.i18n import pick, t
from grader.speed.timing import format_pct


def _formula(nbytes: int, n: int) -> str:
    if n and nbytes % (n * 4) == 0:
        return f"{nbytes // (n * 4)}·n·4"
    return f"{nbytes:,} B"


def words(key: str, lang: str, **kw) -> str:
    """The byte evidence in words (texts.yaml `fusion_words`)."""
    return catalog.text(f"fusion_words.{key}", lang, **kw)


def _tensor(r: dict, lang: str = "en") -> str:
    shape = "x".join(str(n) for n in r.get("shape") or []) or words("scalar", lang)
    times = ""
    if r.get("distinct") and r.get("elsize") and r["bytes"] > r["distinct"] * r["elsize"]:
        k = r["bytes"] / (r["distinct"] * r["elsize"])
        times = words("stored_times", lang, k=f"{k:.3g}")
    return words("tensor", lang, tensor=r['tensor'], shape=shape, dtype=r.get('dtype'), nbytes=f"{r['bytes']:,}",
                 times=times)


def where_extra(d: dict, lang: str) -> str:
    """What the extra bytes of a call were, from its stores by tensor: each figure is what was stored, and where."""
    parts = []
    if d.get("into"):
        parts.append(words("stored_into", lang, names=", ".join(_tensor(r, lang) for r in d["into"])))
    if d.get("restored"):
        parts.append(words("restored", lang, nbytes=f"{d['restored']:,}"))
    if d.get("reloaded"):
        parts.append(words("reloaded", lang, nbytes=f"{d['reloaded']:,}"))
    return words("joiner", lang).join(parts)


def side_outputs(d: dict, lang: str) -> str:
    """The per-row side outputs a call stored (allowed), named, or ""."""
    if not d.get("side"):
        return ""
    return words("side_outputs", lang, names=", ".join(_tensor(r, lang) for r in d["side"]))


def bytes_kw(d: dict, spec, lang: str = "en") -> dict:
    """Format arguments for the bytes messages from {bytes_moved, bytes_model} (ints or the verdict's dicts)."""
    model = d.get("bytes_model") or {}
    moved = d.get("bytes_moved")
    total = moved["total"] if isinstance(moved, dict) else moved
    n, fused, eager = model.get("n") or 0, model.get("fused") or 0, model.get("eager") or 0
    stored = moved.get("stored") if isinstance(moved, dict) else d.get("stored")
    return {"n": f"{n:,}", "moved": f"{total:,}", "fused": f"{fused:,}", "eager": f"{eager:,}",
            "stored": f"{stored or 0:,}", "output": f"{model.get('stored') or 0:,}",
            "extra_stored": f"{(stored or 0) - (model.get('stored') or 0):,}",
            "fused_formula": _formula(fused, n), "eager_formula": _formula(eager, n),
            "extra": f"{(total or 0) - fused:,}", "saved": f"{eager - fused:,}",
            "intermediate": pick(spec.intermediate, lang) or words("intermediate", lang),
            "where": where_extra(d, lang), "side": side_outputs(d, lang),
            "output_stored": f"{d.get('output_bytes') or 0:,}"}


def timing_kw(d: dict) -> dict:
    cand = (d.get("candidate_ms") or 0) * 1e3
    floor = d.get("floor_s") or 0
    copy = d.get("copy_gbps") or 0
    flops, peak = d.get("flops"), d.get("peak_tflops")
    return {"speedup": f"{d.get('speedup') or 0:.2f}", "need": d.get("speedup_min"), "n": f"{d.get('n') or 0:,}",
            "at": d.get("at") or f"n={d.get('n') or 0:,}",
            "cand": f"{cand:.1f}", "eager_t": f"{(d.get('eager_ms') or 0) * 1e3:.1f}", "copy": f"{copy:.0f}",
            "nbytes": f"{int(floor * copy * 1e9):,}", "flops": f"{flops or 0:,}", "peak": f"{peak or 0:.0f}",
            "tflops": f"{flops / (cand * 1e-6) / 1e12:.0f}" if flops and cand else "?"}


def explain_kw(v, spec, lang: str, cat: str, d: dict) -> tuple[str, dict] | None:
    """(text key, format arguments) for too many launches, bytes beyond the fused model and the speed gate; None for
    any other verdict (grader/reporting/report.py explain)."""
    key, kw = cat, {}
    if cat == "fusion":
        kw.update(launches=d.get("launches"), expected=d.get("expected"), kernels=", ".join(d.get("kernels", [])))
        if d.get("bytes_moved"):
            key = "fusion-stored" if d.get("stored_only") else "fusion-bytes"
            if d.get("into") is not None and not d.get("stored_only"):  # the stores by tensor are known
                key = "fusion-bytes-where"
            kw.update(bytes_kw(d, spec, lang))
    elif cat in ("too-slow", "impossible-time") or d.get("timing"):
        kw.update(timing_kw(d), numel=d.get("numel"), wrong=d.get("wrong"), unwritten=0)
        if d.get("flops") and cat in ("too-slow", "impossible-time"):  # compute-bound (spec.flops): FLOPs, not bytes
            key = f"{cat}-compute"
        if cat == "too-slow" and d.get("bar"):  # the gate divides by the spec's speed_bar row, not by eager
            key, kw["bar"] = "too-slow-bar", d["bar"]
    else:
        return None
    return key, kw


def render_parts(v, spec, lang: str) -> list:
    parts = []
    if v.bytes_moved and v.bytes_model and (v.passed or v.diagnosis in ("too-slow", "impossible-time")):
        proof = "stored_proof" if v.bytes_model.get("stored") is not None else "bytes_proof"
        parts.append(Text("  " + t(proof, lang, **bytes_kw({**v.__dict__, **(v.bytes_moved or {})}, spec, lang))))
    if spec.speedup_min is not None and spec.bytes_proof and v.device == "cpu" and v.passed:
        parts.append(Text("  " + t("bytes_stand_in", lang), style="italic"))
    timing = v.timing or {}
    rows = timing.get("rows")
    if rows:
        title = "speed_title_graphed" if timing.get("graphed") else "speed_title"  # the method the rows were timed by
        parts.append(Text(t(title, lang, at=timing.get("at") or f"n={timing['n']:,}", rounds=timing["rounds"]),
                          style="bold"))
        table = Table(box=None, padding=(0, 1))
        compute = bool(timing.get("flops"))  # compute-bound (spec.flops): TFLOPS against the tensor-core peak
        for i, col in enumerate(t("speed_cols_flops" if compute else "speed_cols", lang)):
            table.add_column(col, justify="left" if i == 0 else "right")
        cand_ms = rows[0]["ms"]
        for r in rows:
            rate = f"{r['tflops']:.0f}" if compute else f"{r['gbps']:.0f}"
            label = t("speed_row_yours", lang, entry=spec.entry) if r["role"] == "candidate" else r["label"]
            table.add_row(label, f"{r['ms'] * 1e3:.1f}", rate, format_pct(r.get("pct_peak")),
                          f"{r['ms'] / cand_ms:.2f}x", style="bold" if r["role"] == "candidate" else None)
        parts.append(table)
        model = timing.get("byte_model") or {}
        ratio = f"{model['eager'] / model['fused']:.2f}" if model.get("fused") and model.get("eager") else "?"
        line = "speedup_line_bar" if timing.get("bar") else \
            "speedup_line_no_model" if ratio == "?" else "speedup_line"  # no byte model: no prediction to state
        parts.append(Text("  " + t(line, lang, speedup=f"{timing['speedup']:.2f}", need=timing.get("speedup_min"),
                                   model=ratio, bar=timing.get("bar"))))
        if compute:
            parts.append(Text("  " + t("speed_note_flops", lang, flops=f"{timing['flops']:,}",
                                       peak=f"{timing['peak_tflops']:.0f}" if timing.get("peak_tflops") else "?"),
                              style="dim"))
        else:
            parts.append(Text("  " + t("speed_note", lang, fused=f"{timing['fused_bytes']:,}",
                                       copy=f"{timing['copy_gbps']:.0f}",
                                       cached=words("cached", lang) if timing.get("copy_cached") else "",
                                       peak=f"{timing['peak_gbps']:.0f} GB/s" if timing.get("peak_gbps") else "?"),
                              style="dim"))
    small = timing.get("small")
    if small:
        dv, wl = small["device_us"], small["wall_us"]
        parts.append(Text("  " + t("small_line", lang, at=small.get("at") or f"n={small['n']:,}", dc=f"{dv['candidate']:.1f}",
                                   de=f"{dv['eager']:.1f}", wc=f"{wl['candidate']:.1f}", we=f"{wl['eager']:.1f}")))
        if small.get("launch_bound"):
            parts.append(Text("  " + t("launch_bound", lang), style="yellow"))
    return parts
