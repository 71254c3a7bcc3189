"""Learner-facing texts of grader/families/limits.py (a device's launch limits, a heuristic checked as a pure function), in
English and Chinese. Merged into grader/reporting/i18n.py's tables, like fusion_texts."""
from __future__ import annotations

_XBLOCK_FIX = {
    "en": "XBLOCK = triton.next_power_of_2(triton.cdiv(n, {max_programs})), then clamp it to [{min_block}, "
          "{max_block}]: min(MAX_XBLOCK, max(MIN_XBLOCK, ...)). A power of two, and 32 programs cover small tensors.",
    "zh": "XBLOCK = triton.next_power_of_2(triton.cdiv(n, {max_programs}))，再限制到 [{min_block}, {max_block}]："
          "min(MAX_XBLOCK, max(MIN_XBLOCK, ...))。这样是 2 的幂，小张量也能分给 32 个 program。"}
_WARPS_FIX = {
    "en": "num_warps = min(MAX_WARPS, max(1, XBLOCK // 256)): about 256 elements per warp, never above {max_warps}. "
          "Triton wants a power of two; a power of two divided by 256 stays one.",
    "zh": "num_warps = min(MAX_WARPS, max(1, XBLOCK // 256))：每个 warp 约 256 个元素，不超过 {max_warps}。Triton "
          "要求 2 的幂；2 的幂除以 256 仍是 2 的幂。"}
_GRID_FIX = {
    "en": "grid = max(1, min({max_programs}, triton.cdiv(n, XBLOCK))) in pick_config: one program per tile, capped at "
          "{max_programs}; the kernel's loop gives each program the tiles pid, pid + P, pid + 2P, ...",
    "zh": "在 pick_config 里 grid = max(1, min({max_programs}, triton.cdiv(n, XBLOCK)))：每个 tile 一个 program，"
          "上限 {max_programs}；kernel 里的循环让每个 program 处理 pid、pid + P、pid + 2P……号 tile。"}

FIX_BY_CATEGORY = {"xblock": _XBLOCK_FIX, "warps": _WARPS_FIX, "grid": _GRID_FIX}

DIAGNOSES = {
    "xblock": {
        "what": {"en": "XBLOCK breaks the {device}'s limits", "zh": "XBLOCK 超出了 {device} 的限制"},
        "fix": _XBLOCK_FIX},
    "warps": {
        "what": {"en": "num_warps breaks the {device}'s limits", "zh": "num_warps 超出了 {device} 的限制"},
        "fix": _WARPS_FIX},
    "device-refuses": {
        "what": {"en": "the {device} refuses this launch of `{kernel}` (line {line}): {programs} programs of "
                       "{num_warps} warps at n = {numel}, but it runs at most {max_programs} programs of at most "
                       "{max_warps} warps",
                 "zh": "{device} 拒绝执行 `{kernel}` 的这次启动（第 {line} 行）：n = {numel} 时启动了 {programs} 个 "
                       "program、每个 {num_warps} 个 warp，但它最多只能运行 {max_programs} 个 program、每个最多 "
                       "{max_warps} 个 warp"},
        "fix": {"en": "In pick_config: grid = max(1, min({max_programs}, triton.cdiv(n, XBLOCK))) (line {grid_line}) "
                      "and num_warps <= {max_warps} (line {warps_line}); the kernel's loop lets each program handle "
                      "several tiles.",
                "zh": "在 pick_config 里：grid = max(1, min({max_programs}, triton.cdiv(n, XBLOCK)))（第 {grid_line} "
                      "行），num_warps <= {max_warps}（第 {warps_line} 行）；kernel 里的循环让每个 program 处理多个 tile。"}},
    "device-refuses-block": {
        "what": {"en": "the {device} refuses this launch of `{kernel}` (line {line}): XBLOCK = {block} at n = {numel}, "
                       "but it takes a power of two in [{min_block}, {max_block}]",
                 "zh": "{device} 拒绝执行 `{kernel}` 的这次启动（第 {line} 行）：n = {numel} 时 XBLOCK = {block}，但它只接受 "
                       "[{min_block}, {max_block}] 内 2 的幂"}},
    "contract-pow2": {
        "what": {"en": "{function}({input}) returns {field} = {value}, not a power of two (line {line}){failing_note}",
                 "zh": "{function}({input}) 返回 {field} = {value}，不是 2 的幂（第 {line} 行）{failing_note}"}},
    "contract-max": {
        "what": {"en": "{function}({input}) returns {field} = {value}, above the {device}'s limit of {max} (line "
                       "{line}){failing_note}",
                 "zh": "{function}({input}) 返回 {field} = {value}，超过了 {device} 的上限 {max}（第 {line} 行）"
                       "{failing_note}"}},
    "contract-min": {
        "what": {"en": "{function}({input}) returns {field} = {value}, below the {device}'s minimum {min} (line "
                       "{line}){failing_note}",
                 "zh": "{function}({input}) 返回 {field} = {value}，低于 {device} 的下限 {min}（第 {line} 行）"
                       "{failing_note}"}},
    "contract-type": {
        "what": {"en": "{function}({input}) returns {field} = {value} ({type}), not an int (line {line})",
                 "zh": "{function}({input}) 返回的 {field} = {value}（{type}）不是 int（第 {line} 行）"},
        "fix": {"en": "Return plain Python ints: triton.cdiv, //, min and max of ints; no floats, no tensors.",
                "zh": "返回 Python int：用 triton.cdiv、//、int 的 min/max；不要 float，也不要张量。"}},
    "contract-missing": {
        "what": {"en": "{function}({input}) returns {returned}: there is no key `{field}`",
                 "zh": "{function}({input}) 返回 {returned}：没有键 `{field}`"},
        "fix": {"en": "Return {signature}.", "zh": "返回 {signature}。"}},
    "contract-returned": {
        "what": {"en": "{function}({input}) returns a {got}, not a dict", "zh": "{function}({input}) 返回的是 {got}，不是 dict"},
        "fix": {"en": "Return {signature}.", "zh": "返回 {signature}。"}},
    "contract-missing-function": {
        "what": {"en": "no function `{function}` in the file (found: {found}); the grader calls {signature} at sizes "
                       "from 1 to 10^9",
                 "zh": "文件里没有函数 `{function}`（找到的函数：{found}）；评测会在 1 到 10^9 的尺寸上调用 {signature}"},
        "fix": {"en": "Define {signature}: a pure function of the size.", "zh": "定义 {signature}：只依赖尺寸的纯函数。"}},
    "contract-raised": {
        "what": {"en": "{function}({input}) raised {type}: {message}", "zh": "{function}({input}) 抛出 {type}：{message}"},
        "fix": {"en": "{function} must work for every n from 1 to 10^9: integer arithmetic only, no tensors, no "
                      "device queries.",
                "zh": "{function} 必须对 1 到 10^9 的每个 n 都能工作：只做整数运算，不用张量，也不查询设备。"}},
    "launch-mismatch": {
        "what": {"en": "`{entry}` launched {field} = {launched} at n = {numel} (line {line}), but {function}({numel}) "
                       "picked {picked}",
                 "zh": "`{entry}` 在 n = {numel} 时启动用的 {field} = {launched}（第 {line} 行），但 {function}({numel}) "
                       "选的是 {picked}"},
        "fix": {"en": "Launch what the heuristic picked: config = {function}(n); kernel[(config['grid'],)](..., "
                      "XBLOCK=config['XBLOCK'], num_warps=config['num_warps']). Otherwise checking {function} up to "
                      "10^9 says nothing about your launches.",
                "zh": "按启发式选的配置启动：config = {function}(n)；kernel[(config['grid'],)](..., "
                      "XBLOCK=config['XBLOCK'], num_warps=config['num_warps'])。否则在 10^9 以内检查 {function} "
                      "就说明不了你的启动参数。"}},
}

M = {
    "limits_line": {
        "en": "{device}: at most {max_programs} programs per launch and {max_warps} warps per program, XBLOCK a power of "
              "two in [{min_block}, {max_block}]. {function} was called at {inputs} sizes from 1 to {largest:,} "
              "(no launch), and every launch was checked against these limits.",
        "zh": "{device}：每次启动最多 {max_programs} 个 program，每个最多 {max_warps} 个 warp，XBLOCK 是 "
              "[{min_block}, {max_block}] 内 2 的幂。{function} 在 1 到 {largest:,} 的 {inputs} 个尺寸上被调用过（不启动 "
              "kernel），每次启动也都按这些限制检查过。"},
    "limits_failing_note": {
        "en": "; {failing} of the {inputs} sizes checked (1 to 10^9, called without launching) break it, the smallest "
              "at n = {input}",
        "zh": "；检查的 {inputs} 个尺寸（1 到 10^9，只调用函数、不启动 kernel）里有 {failing} 个不满足，最小的是 n = {input}"},
    "limits_timing_title": {
        "en": "Your capped grid against the same kernel with one program per tile, on {name} (do_bench medians; shown, "
              "not graded):",
        "zh": "你的有上限 grid 与同一个 kernel 每 tile 一个 program 的对比，{name}（do_bench 中位数；只展示，不计分）："},
    "limits_timing_row": {
        "en": "  n={n}: yours {programs} programs x XBLOCK {block} {capped} µs; uncapped {tiles} programs {uncapped} µs "
              "(capped is {slowdown}x); eager {eager} µs",
        "zh": "  n={n}：你的 {programs} 个 program × XBLOCK {block} {capped} µs；不设上限 {tiles} 个 program {uncapped} µs"
              "（有上限是它的 {slowdown} 倍）；eager {eager} µs"},
    "limits_timing_skipped": {"en": "  n={n}: not timed ({why})", "zh": "  n={n}：没有计时（{why}）"},
    "limits_lesson": {
        "en": "A GPU with 132 SMs keeps thousands of programs in flight: 32 programs leave most of it idle, so the cap "
              "costs time here. The GXU needs the loop anyway, because it refuses a bigger grid; when 32 programs is "
              "what it keeps resident at once, a capped grid fills it. Measured figures: docs/heuristics.md.",
        "zh": "有 132 个 SM 的 GPU 可以同时运行成千上万个 program：32 个 program 让大部分 SM 空闲，所以在这里上限会变慢。"
              "GXU 仍然需要这个循环，因为更大的 grid 会被拒绝；如果 32 个 program 正好是它能同时驻留的数量，有上限的 grid "
              "就能把它占满。实测数字见 docs/heuristics.md。"},
    "limits_cpu_note": {
        "en": "On a GPU, `drill grade --device cuda` also times your capped launch against the same kernel with one "
              "program per tile.",
        "zh": "在 GPU 上，`drill grade --device cuda` 还会把你的有上限启动和同一个 kernel 每 tile 一个 program 的启动做计时对比。"},
}

CHECK_NAMES_ZH = {"launches within the device's limits": "启动参数不超出设备限制"}
