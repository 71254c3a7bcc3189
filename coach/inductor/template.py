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

NOTES = {
    "program": {"en": "program id: one program per output tile", "zh": "program id：每个 program 负责一个输出 tile"},
    "config": {"en": "a config the autotuner chose, baked in as a constexpr",
               "zh": "autotuner 选中的配置，作为 constexpr 写死"},
    "baked": {"en": "shape / stride baked in as a constant (static shape: another shape compiles again)",
              "zh": "形状 / stride 作为常量写死（静态形状：换形状会重新编译）"},
    "group": {"en": "grouped ordering: GROUP_M tile rows swept together, for L2 reuse",
              "zh": "分组顺序：GROUP_M 行 tile 一起推进，复用 L2"},
    "tile": {"en": "which output tile (row, column) this program computes", "zh": "本 program 计算哪个输出 tile（行、列）"},
    "wrap": {"en": "rows/columns past the edge wrap round (% M, % N) instead of a load mask: always in bounds, "
                   "the extra results are dropped by the store's mask",
             "zh": "越界的行/列用 % M、% N 折回，而不是给 load 加 mask：地址总在范围内，多算的结果由 store 的 mask 丢掉"},
    "acc": {"en": "float32 accumulator tile, in registers", "zh": "float32 累加 tile，放在寄存器里"},
    "k-loop": {"en": "the K loop: one BLOCK_K slice of A and of B per step", "zh": "K 循环：每步取 A 和 B 的一个 BLOCK_K 切片"},
    "k-mask": {"en": "K-tail mask: lanes past K read 0 (other=0.0 adds nothing to the dot)",
               "zh": "K 尾部 mask：超出 K 的 lane 读 0（other=0.0 对点积没有贡献）"},
    "dot": {"en": "tl.dot into the float32 accumulator (tensor cores on a GPU)",
            "zh": "tl.dot 累加到 float32 累加器（GPU 上走 tensor core）"},
    "edge-mask": {"en": "M/N edge mask: only elements inside the (M, N) output are written",
                  "zh": "M/N 边界 mask：只写 (M, N) 输出范围内的元素"},
    "epilogue-load": {"en": "epilogue: load {ptr}, another input of the fused ops, after the K loop (for a @ b + bias: "
                            "the bias, one value per output column)",
                      "zh": "epilogue：在 K 循环之后 load {ptr}，被融合算子的另一个输入（对 a @ b + bias 来说就是 bias，"
                            "每个输出列一个值）"},
    "epilogue-add": {"en": "epilogue: + bias on the accumulator, still in registers",
                     "zh": "epilogue：在寄存器里的累加器上 + bias"},
    "cast": {"en": "cast: rounded to float16 and back, the value eager's addmm would have stored",
             "zh": "类型转换：舍入到 float16 再转回，正是 eager 的 addmm 会存下的值"},
    "relu": {"en": "epilogue: relu, fused: the (M, N) product never goes to memory before it",
             "zh": "epilogue：relu，已融合：(M, N) 乘积在此之前从不写回显存"},
    "epilogue-op": {"en": "epilogue: computed from the accumulator", "zh": "epilogue：由累加器计算"},
}
# Side by side, in the order a matmul is read.
ROWS = ("program", "tile", "group", "offsets", "wrap", "acc", "k-loop", "load", "k-mask", "dot", "edge-mask", "epilogue-load",
        "epilogue-add", "relu", "store")

T = {
    "settings": {"en": "torch.compile(options=...) from mode={mode!r} and the drill's settings: {options}",
                 "zh": "torch.compile(options=...)，来自 mode={mode!r} 和这个 drill 的设置：{options}"},
    "options_failed": {"en": "With the drill's settings {options} this backend failed: {type}: {message}",
                       "zh": "用这个 drill 的设置 {options}，这个后端编译失败：{type}: {message}"},
    "options_retry": {"en": "so it was compiled again with {options}: the kernels above come from that compile",
                      "zh": "因此改用 {options} 重新编译：上面的 kernel 来自这次编译"},
    "ignored": {"en": "not in this torch, left out: {keys}", "zh": "这个版本的 torch 没有，已略去：{keys}"},
    "override": {"en": "under the interpreter also {setting}={value}: {why}", "zh": "解释器下另设 {setting}={value}：{why}"},
    "why_benchmark_epilogue_fusion": {
        "en": "the module Inductor writes to time a fused epilogue against an unfused one, for a CPU device, fails to "
              "import in torch 2.13 (IndentationError), so the epilogue is fused without that benchmark",
        "zh": "Inductor 为 CPU 设备生成的、用来比较融合与不融合 epilogue 的计时模块在 torch 2.13 中无法导入"
              "（IndentationError），所以不做这次计时直接融合"},
    "why_test_configs.max_mm_configs": {
        "en": "each mm config costs seconds per call under the interpreter; two candidates instead of ~20",
        "zh": "解释器下每个 mm 配置每次调用要几秒；只试两个候选，而不是约 20 个"},
    "template_launch": {
        "en": "grid ({programs},) fixed when the code was written (FixedGrid): cdiv({m}, {bm}) x cdiv({n}, {bn}) = "
              "{gm} x {gn} tiles of {bm} x {bn}, one program each; K = {k} in steps of BLOCK_K = {bk}",
        "zh": "grid ({programs},) 在生成代码时就已确定（FixedGrid）：cdiv({m}, {bm}) × cdiv({n}, {bn}) = {gm} × {gn} "
              "个 {bm} × {bn} 的 tile，每个 program 一个；K = {k}，每步 BLOCK_K = {bk}"},
    "externs": {"en": "library calls in the wrapper (not generated code):", "zh": "wrapper 里的库调用（不是生成的代码）："},
    "extern_addmm": {"en": "bias + a @ b in one ATen call (cuBLAS on a GPU): Inductor rewrote a @ b + bias as addmm",
                     "zh": "一次 ATen 调用算 bias + a @ b（GPU 上是 cuBLAS）：Inductor 把 a @ b + bias 改写成了 addmm"},
    "extern_mm": {"en": "a @ b in one ATen call (cuBLAS on a GPU)", "zh": "一次 ATen 调用算 a @ b（GPU 上是 cuBLAS）"},
    "autotune_title": {"en": "What the autotuner measured for {op}({inputs}): {n} choices{more}",
                       "zh": "autotuner 对 {op}({inputs}) 的测量：{n} 个候选{more}"},
    "autotune_interp": {"en": " — Triton interpreter times on this CPU, nothing like a GPU's",
                        "zh": "——本机 CPU 上 Triton 解释器的时间，和 GPU 完全不同"},
    "autotune_none": {"en": "No autotuning was recorded in this run{why}.", "zh": "这次运行没有记录到自动调优{why}。"},
    "autotune_none_cache": {"en": " (the FX graph cache supplied the compiled graph: --cold to autotune afresh)",
                            "zh": "（编译好的图来自 FX 图缓存：加 --cold 重新调优）"},
    "autotune_none_single": {"en": " (Inductor times candidates only when there are two or more)",
                             "zh": "（Inductor 只有在候选不少于两个时才计时）"},
    "picked": {"en": "picked", "zh": "选中"},
    "extern_kind": {"en": "ATen (cuBLAS on a GPU)", "zh": "ATen（GPU 上是 cuBLAS）"},
    "template_kind": {"en": "Triton template", "zh": "Triton 模板"},
    "compare_title": {"en": "Unrestricted: the same mode with {options}", "zh": "不加限制：同一 mode，设置为 {options}"},
    "compare_defaults": {"en": "Inductor's default GEMM backends", "zh": "Inductor 默认的 GEMM 后端"},
    "compare_template": {"en": "Inductor kept the Triton template: {kernels} (epilogue fused into it).",
                         "zh": "Inductor 选了 Triton 模板：{kernels}（epilogue 融合在里面）。"},
    "compare_extern": {"en": "Inductor picked the library GEMM: extern_kernels.{externs}, then {kernels} for the rest "
                             "of the epilogue (the (M, N) result goes to memory and is read back).",
                       "zh": "Inductor 选了库里的 GEMM：extern_kernels.{externs}，epilogue 剩下的部分由 {kernels} 完成"
                             "（(M, N) 结果写回显存再读回）。"},
    "compare_nothing": {"en": "no generated kernel", "zh": "没有生成的 kernel"},
    "compare_error": {"en": "The second compile failed: {type}: {message}", "zh": "第二次编译失败：{type}: {message}"},
    "fusion_bench": {"en": "Inductor's epilogue benchmark (template + epilogue vs best choice + separate kernel):",
                     "zh": "Inductor 的 epilogue 计时（模板 + epilogue 对比最佳候选 + 单独 kernel）："},
    "compare_timing": {"en": "first call {first} (compile + autotune), second call {second}",
                       "zh": "第一次调用 {first}（编译 + 调优），第二次调用 {second}"},
    "cpu_title": {"en": "What this CPU can and cannot show", "zh": "这台 CPU 能展示什么、不能展示什么"},
    "cpu_triton": {
        "en": "Shown for real: the Triton mm template Inductor writes under max-autotune, with the bias and the relu "
              "fused into its epilogue (Inductor rewrote a @ b + bias as addmm, whose bias is loaded after the K loop), "
              "generated for CPU tensors through the private switch, run by Triton's interpreter and checked against "
              "eager. Not shown: what a GPU would pick. The autotuner's times are interpreter times over two "
              "candidates, so its pick says nothing about a GPU; the benchmark of a fused against an unfused "
              "epilogue is off; and the second compile, where cuBLAS (extern_kernels.addmm plus a separate relu "
              "kernel) competes with the template, is not run, because a native CPU GEMM against interpreted Triton "
              "would decide it, which says nothing about a GPU. `drill inductor {drill} --device cuda` on a GPU "
              "shows those.",
        "zh": "真实展示的：max-autotune 下 Inductor 生成的 Triton mm 模板，bias 和 relu 融合在它的 epilogue 里（Inductor "
              "把 a @ b + bias 改写成 addmm，bias 在 K 循环之后 load），通过私有开关为 CPU 张量生成，由 Triton 解释器运行，"
              "并与 eager 对比过。没有展示的：GPU 会选什么。autotuner 的时间是解释器在两个候选上的时间，它的选择与 GPU 无关；"
              "融合与不融合 epilogue 的计时被关掉了；让 cuBLAS（extern_kernels.addmm 加一个单独的 relu kernel）和模板"
              "竞争的第二次编译也没有运行，因为那会由本机 CPU 的 GEMM 对比解释执行的 Triton 来决定，对 GPU 毫无意义。"
              "在有 GPU 的机器上运行 `drill inductor {drill} --device cuda` 可以看到这些。"},
    "cpu_cpp": {
        "en": "Inductor's C++ backend has no Triton templates: the matmul stays a library call "
              "(extern_kernels.addmm, ATen's CPU GEMM with the bias as addmm's input) and only the relu is generated "
              "(cpp_fused_...). Inductor's own C++ GEMM template (backend CPP) needs b to be a constant of the graph "
              "(a module's weight, with freezing), which a plain input is not. So no epilogue is fused into a matmul "
              "here; the Triton template and its epilogue appear with the Triton path (the default on this machine "
              "when the private switch works) or on a GPU (`--device cuda`).",
        "zh": "Inductor 的 C++ 后端没有 Triton 模板：matmul 仍是库调用（extern_kernels.addmm，ATen 的 CPU GEMM，bias 作为 "
              "addmm 的 input），只有 relu 是生成的代码（cpp_fused_...）。Inductor 自己的 C++ GEMM 模板（CPP 后端）要求 b "
              "是图里的常量（模块的权重，并开启 freezing），普通输入不满足。所以这里没有任何 epilogue 融合进 matmul；"
              "Triton 模板和它的 epilogue 要走 Triton 路径（私有开关可用时本机默认如此）或在 GPU 上（`--device cuda`）看。"},
}


def _t(key: str, lang: str, **kw) -> str:
    return pick(T[key], lang).format(**kw)


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
