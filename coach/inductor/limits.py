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

from grader.reporting.i18n import pick

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

T = {
    "title": {"en": "Against the {device} (at most {max_programs} programs, {max_warps} warps, XBLOCK a power of two "
                    "in [{min_block}, {max_block}])",
              "zh": "放到 {device} 上（最多 {max_programs} 个 program、{max_warps} 个 warp，XBLOCK 是 [{min_block}, "
                    "{max_block}] 内 2 的幂）"},
    "launch": {"en": "Inductor's launch at n = {n}: {programs} programs x XBLOCK {block}, {warps} warps ({how}).",
               "zh": "n = {n} 时 Inductor 的启动：{programs} 个 program × XBLOCK {block}，{warps} 个 warp（{how}）。"},
    "how_launch": {"en": "recorded", "zh": "实际记录"}, "how_config": {"en": "the autotuner's config", "zh": "autotuner 的配置"},
    "refused": {"en": "The {device} would refuse it: {what}.", "zh": "{device} 会拒绝这次启动：{what}。"},
    "accepted": {"en": "Within the {device}'s limits at this size.", "zh": "在这个尺寸上没有超出 {device} 的限制。"},
    "programs": {"en": "{programs} programs > {max_programs}", "zh": "{programs} 个 program > {max_programs}"},
    "num_warps": {"en": "{warps} warps > {max_warps}", "zh": "{warps} 个 warp > {max_warps}"},
    "block": {"en": "XBLOCK {block} outside [{min_block}, {max_block}]", "zh": "XBLOCK {block} 不在 [{min_block}, {max_block}] 内"},
    "configs": {"en": "Candidate configs: {configs} — XBLOCK and num_warps within the limits: {within} of {total}.",
                "zh": "候选配置：{configs}——XBLOCK 和 num_warps 在限制内的：{within}/{total} 个。"},
    "where_title": {"en": "Where the installed Inductor decides them (torch {torch}; lines read from its source now):",
                    "zh": "已安装的 Inductor 在哪里决定它们（torch {torch}；行号是现在从源码里读出的）："},
    "missing": {"en": "not found in this torch", "zh": "这个版本的 torch 里没有找到"},
    "paragraph": {
        "en": "No honest patch point for the grid: the installed Inductor has no setting that caps it. A pointwise "
              "kernel launches cdiv(xnumel, XBLOCK) programs (Grid1D.generate), each handling one tile, and its code "
              "has no loop over tiles. The only max-grid logic (maxGridSize in triton_config, _check_max_grid_x) "
              "answers a grid that is too big by growing XBLOCK, which cannot keep {max_programs} programs past "
              "{max_programs} x TRITON_MAX_BLOCK['X'] elements. So the limit has to go into a backend of its own: "
              "register_backend_for_device('{device_lower}', a TritonScheduling subclass whose kernel_type is a "
              "TritonKernel subclass that wraps the body in a loop over tiles, a wrapper codegen), a GridExpr "
              "subclass computing min(cdiv(xnumel, XBLOCK), {max_programs}) named by inductor_meta['grid_type'] "
              "(GridExpr.from_meta looks it up among triton_heuristics' globals), and configs within {max_warps} "
              "warps. num_warps already stays within 8 for pointwise kernels (_num_warps), but a reduction over "
              "more than 8192 elements may get 32 warps (triton_config_reduction): that is where a {max_warps}-warp "
              "cap would go. Nothing is patched here, so no 'with the limit' kernel is shown.",
        "zh": "网格没有可以如实修改的补丁点：已安装的 Inductor 没有任何限制 grid 的配置。逐点 kernel 启动 "
              "cdiv(xnumel, XBLOCK) 个 program（Grid1D.generate），每个只处理一个 tile，代码里也没有对 tile 的循环。"
              "唯一与最大 grid 有关的逻辑（triton_config 里的 maxGridSize、_check_max_grid_x）在 grid 太大时只会把 "
              "XBLOCK 调大，元素超过 {max_programs} × TRITON_MAX_BLOCK['X'] 后就无法保持 {max_programs} 个 program。所以"
              "这个限制必须放进自己的后端：register_backend_for_device('{device_lower}', 一个 TritonScheduling 子类——"
              "它的 kernel_type 是把函数体包进 tile 循环的 TritonKernel 子类，再加一个 wrapper codegen），一个计算 "
              "min(cdiv(xnumel, XBLOCK), {max_programs}) 的 GridExpr 子类，由 inductor_meta['grid_type'] 指名"
              "（GridExpr.from_meta 在 triton_heuristics 的全局变量里按名字查找），以及 num_warps 不超过 {max_warps} "
              "的配置。逐点 kernel 的 num_warps 本来就不超过 8（_num_warps），但归约长度超过 8192 时可能得到 32 个 warp"
              "（triton_config_reduction）：{max_warps} 个 warp 的上限应该加在那里。这里没有打任何补丁，所以不展示"
              "“加了限制”的 kernel。"},
}


def _t(key: str, lang: str, **kw) -> str:
    return pick(T[key], lang).format(**kw)


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
