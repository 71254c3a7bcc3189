"""`drill inductor` for a drill whose device has launch limits (spec.device_limits, e.g. the guide's GXU): Inductor's
own launch held against the device, and where in the installed Inductor XBLOCK, num_warps and the grid are decided.

The source lines are read from the installed torch when the command runs (never copied here), so on another torch
they are that torch's lines, or reported missing. The child (coach/inductor/child.py) calls `facts`; the view calls
`render`. Pure functions apart from reading torch's files.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

from grader.core import catalog

# (file under torch/_inductor, top-level function, class.method or module name, regex of the line, what it decides)
WHERE = (
    ("runtime/triton_heuristics.py", "Grid1D.generate", r'x_grid\s*=\s*self\.ceildiv\(\s*"xnumel"', "grid"),
    ("runtime/triton_heuristics.py", "triton_config", r"maxGridSize\s*=", "grid"),
    ("runtime/triton_heuristics.py", "_check_max_grid_x", r"max_grid_x\s*=", "grid"),
    ("runtime/triton_heuristics.py", "pointwise", r"\bbs\s*=\s*max\(", "xblock"),
    ("runtime/hints.py", "TRITON_MAX_BLOCK", r'"X"\s*:', "xblock"),
    ("runtime/triton_heuristics.py", "_num_warps", r"max_num_warps\s*=\s*\d+", "warps"),
    ("runtime/triton_heuristics.py", "triton_config_reduction", r"max_num_warps\s*=\s*16", "warps"),
)


def _region(tree: ast.Module, where: str):
    """(first, last) line of a top-level function / class method / module-level assignment named `where`."""
    head, _, method = where.partition(".")
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == head:
            if not method:
                return node.lineno, node.end_lineno
            for sub in node.body:
                if isinstance(sub, ast.FunctionDef) and sub.name == method:
                    return sub.lineno, sub.end_lineno
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and not method:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == head for t in targets):
                return node.lineno, node.end_lineno
    return None


def find_lines(inductor_dir: str | Path) -> list[dict]:
    """Each WHERE entry with the installed line number and text, or `missing` when this torch has no such code."""
    out, trees = [], {}
    for rel, where, pattern, decides in WHERE:
        item = {"file": f"torch/_inductor/{rel}", "where": where, "decides": decides}
        path = Path(inductor_dir) / rel
        try:
            if rel not in trees:
                source = path.read_text(encoding="utf-8")
                trees[rel] = (source.split("\n"), ast.parse(source))
            lines, tree = trees[rel]
        except (OSError, SyntaxError, ValueError):
            out.append({**item, "missing": True})
            continue
        region = _region(tree, where)
        found = None
        if region:
            for n in range(region[0], region[1] + 1):
                if re.search(pattern, lines[n - 1]):
                    found = n
                    break
        if found is None:
            out.append({**item, "missing": True})
        else:
            out.append({**item, "line": found, "text": lines[found - 1].strip()})
    return out


def inductor_launch(capture: dict, numel: int | None) -> dict | None:
    """Programs, XBLOCK and num_warps of Inductor's kernel: the recorded launch (interpreter), else the config the
    autotuner kept and cdiv(numel, XBLOCK) (GPU: Inductor launches through its own launcher)."""
    launch = next((l for l in capture.get("launches", []) if l.get("programs")), None)
    tuner = next((a for a in capture.get("autotuners", []) if a.get("chosen") or a.get("configs")), None)
    config = (tuner.get("chosen") or tuner.get("configs") or [None])[0] if tuner else None
    if launch is not None:
        block = launch.get("block")
        warps = launch.get("num_warps")
        if warps is None and config and config.get("XBLOCK") == block:
            warps = config.get("num_warps")
        return {"programs": launch["programs"], "block": block, "num_warps": warps, "from": "launch"}
    if config and config.get("XBLOCK") and numel:
        return {"programs": -(-numel // config["XBLOCK"]), "block": config["XBLOCK"],
                "num_warps": config.get("num_warps"), "from": "config"}
    return None


def judge(launch: dict | None, lim: dict) -> list[str]:
    """Which of the device's limits Inductor's launch breaks: 'programs', 'num_warps', 'block'."""
    if not launch:
        return []
    broken = []
    if (launch.get("programs") or 0) > lim["max_programs"]:
        broken.append("programs")
    if (launch.get("num_warps") or 4) > lim["max_warps"]:
        broken.append("num_warps")
    b = launch.get("block")
    if b and not (lim["min_block"] <= b <= lim["max_block"] and b & (b - 1) == 0):
        broken.append("block")
    return broken


def facts(spec, capture: dict, numel: int | None) -> dict | None:
    """What the child adds to the capture for a drill with device limits."""
    lim = spec.device_limits
    if lim is None:
        return None
    import torch._inductor

    limits = {"device": lim.name, "max_programs": lim.max_programs, "max_warps": lim.max_warps,
              "min_block": lim.min_block, "max_block": lim.max_block}
    launch = inductor_launch(capture, numel)
    configs = [c for a in capture.get("autotuners", []) for c in a.get("configs", [])]
    return {"limits": limits, "numel": numel, "launch": launch, "broken": judge(launch, limits),
            "configs_within": [c for c in configs if not judge({"programs": 1, **_launch_of(c)}, limits)],
            "configs": configs, "where": find_lines(Path(torch._inductor.__file__).parent)}


def _launch_of(config: dict) -> dict:
    return {"block": config.get("XBLOCK"), "num_warps": config.get("num_warps")}


# ---------------------------------------------------------------- view

T = catalog.section("coach.inductor_limits")  # texts.yaml


def _t(key: str, lang: str, **kw) -> str:
    return T[key][lang].format(**kw)


def render(capture: dict, lang: str, out) -> None:
    f = capture.get("limits")
    if not f:
        return
    lim = f["limits"]
    out.print()
    out.print(f"[bold]{_t('title', lang, **lim)}[/bold]")
    launch = f.get("launch")
    if launch:
        out.print("  " + _t("launch", lang, n=f"{f['numel']:,}" if f.get("numel") else "?",
                             programs=launch["programs"], block=launch["block"], warps=launch.get("num_warps") or 4,
                             how=_t("how_" + launch["from"], lang)), markup=False)
        kw = dict(lim, programs=launch["programs"], warps=launch.get("num_warps") or 4, block=launch["block"])
        if f["broken"]:
            what = "; ".join(_t(b, lang, **kw) for b in f["broken"])
            out.print("  " + _t("refused", lang, device=lim["device"], what=what), style="red", markup=False)
        else:
            out.print("  " + _t("accepted", lang, device=lim["device"]), markup=False)
    if f.get("configs"):
        configs = ", ".join(" ".join(f"{k}={v}" for k, v in c.items()) for c in f["configs"])
        out.print("  " + _t("configs", lang, configs=configs, within=len(f["configs_within"]),
                             total=len(f["configs"])), markup=False)
    out.print(_t("where_title", lang, torch=capture.get("torch", "?")), style="bold")
    for w in f.get("where", []):
        loc = f"{w['file']}:{w['where']}"
        if w.get("missing"):
            out.print(f"  {loc}  — {_t('missing', lang)}", markup=False, style="yellow")
        else:
            out.print(f"  {loc} (line {w['line']}, {w['decides']}):  {w['text']}", markup=False)
    out.print("  " + _t("paragraph", lang, device_lower=lim["device"].lower(), **lim), markup=False)
