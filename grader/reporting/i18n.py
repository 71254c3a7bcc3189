"""Learner-facing strings in English and Chinese. `lang` comes from --lang, else DRILL_LANG, else LANG."""
from __future__ import annotations

import os
import re

LANGS = ("en", "zh")


def resolve_lang(flag: str | None = None) -> str:
    for value in (flag, os.environ.get("DRILL_LANG"), os.environ.get("LANG")):
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def pick(text, lang: str) -> str:
    """A {'en': ..., 'zh': ...} mapping (or a plain string) in the wanted language, falling back to English."""
    if isinstance(text, dict):
        return text.get(lang) or text.get("en") or ""
    return text or ""


M = {
    "pass": {"en": "PASS", "zh": "通过"},
    "fail": {"en": "FAIL", "zh": "未通过"},
    "no_verdict": {"en": "NOT GRADED", "zh": "未能评测"},
    "interpreter_note": {
        "en": "No GPU here: your kernel ran in Triton's interpreter. Every lane of every load, store and atomic "
              "was checked; speed was not measured.",
        "zh": "本机没有 GPU：kernel 在 Triton 解释器里运行。每个 load、store 和 atomic 的每条 lane 都检查过地址；"
              "没有测速度。"},
    "cuda_note": {
        "en": "Ran on {name}; memory safety also checked lane by lane in Triton's interpreter.",
        "zh": "在 {name} 上运行；另外在 Triton 解释器里逐 lane 检查了访存越界。"},
    "hole_title": {"en": "this hole is not filled", "zh": "空位还没填"},
    "line": {"en": "line", "zh": "第 {n} 行"},
    "fix": {"en": "Fix", "zh": "怎么改"},
    "fix_held": {"en": "the line above is where to look. `drill hint {drill}` gives the next step; the code of the fix "
                       "comes with the last hint, with a second failure of this kind, or now with `--show-fix`.",
                 "zh": "看上面那一行。`drill hint {drill}` 给出下一步；修正代码会随最后一条提示、同类错误第二次出现时，"
                       "或加 `--show-fix` 时显示。"},
    "sizes": {"en": "sizes", "zh": "尺寸"},
    "tiles": {"en": "tiles (n={n}, BLOCK={block}, {tiles} tiles)", "zh": "tile 图（n={n}，BLOCK={block}，共 {tiles} 块）"},
    "tiles_rows": {"en": "rows of the {rows}x{cols} output (one cell per row, one program each)",
                   "zh": "{rows}x{cols} 输出的行（每行一格，每行一个 program）"},
    "tiles_2d": {"en": "tiles of the {m}x{n} output (BLOCK {bm}x{bn}: {rows} x {cols} tiles; each line "
                       "starts at that row)",
                 "zh": "{m}x{n} 输出的 tile 图（BLOCK {bm}x{bn}：{rows} 行 x {cols} 列 tile；每行开头是起始行号）"},
    "legend": {"en": "■ ok   ✗ wrong   · unwritten   ! out of bounds",
               "zh": "■ 正确   ✗ 值错   · 没写   ! 越界"},
    "first_bad": {"en": "first bad element", "zh": "第一个错的元素"},
    "expected": {"en": "expected", "zh": "应为"},
    "got": {"en": "got", "zh": "实际"},
    "never_written": {"en": "never written (still the sentinel)", "zh": "从未写入（仍是哨兵值）"},
    "stored_sentinel": {"en": "{n} stored values carry the grader's sentinel NaN: they were computed from memory no "
                              "store had written (a scratch row no program filled, an accumulator never zeroed)",
                        "zh": "有 {n} 个写入的值带着评测器的哨兵 NaN：它们是用没有任何 store 写过的内存算出来的（没有 program 填过的临时行，或者从没清零的累加器）"},
    "checks": {"en": "checks", "zh": "检查项"},
    "also_seen": {"en": "also seen", "zh": "另外还发现"},
    "say_it": {"en": "Now say it out loud, 2 minutes, looking at your code:",
               "zh": "现在对着代码说 2 分钟（通关）："},
    "learner_output": {"en": "your program printed", "zh": "你的程序输出"},
    "learner_output_cut": {"en": "last lines; {n} earlier left out", "zh": "最后几行；前面 {n} 行略去"},
    "autotune_picked": {"en": "The autotuner picked {config} at the largest size.",
                        "zh": "在最大尺寸上，autotuner 选中的是 {config}。"},
    "elapsed": {"en": "graded in {s:.1f} s", "zh": "评测用时 {s:.1f} 秒"},
    "unchecked": {"en": "{n} calls not checked on CPU ({reason}): the verdict rests on the other calls",
                  "zh": "{n} 次调用无法在 CPU 上检查（{reason}）：结论基于其余的调用"},
    "skipped": {"en": "{n} calls skipped to fit the interpreter's time budget (sizes {sizes}; the slowest would "
                      "take ~{estimate} s): the verdict rests on the calls that ran",
                "zh": "为了不超出解释器的时间预算，跳过了 {n} 次调用（尺寸 {sizes}；最慢的一次估计要 ~{estimate} 秒）："
                      "结论基于实际运行的调用"},
}

# Per diagnosis: what is wrong, and the fix. Formatted with the diagnosis detail.
DIAGNOSES = {
    "hole": {
        "what": {"en": "hole `{name}` is not filled (line {line}){more}",
                 "zh": "空位 `{name}` 还没填（第 {line} 行）{more}"},
        "fix": {"en": "Replace each HOLE(...) with your code. `drill hint {drill}` gives one hint at a time.",
                "zh": "把每个 HOLE(...) 换成你的代码。`drill hint {drill}` 每次给一条提示。"}},
    "error": {
        "what": {"en": "{stage}: {type}: {message}", "zh": "{stage}：{type}: {message}"},
        "fix": {"en": "Fix the line shown; the grader runs your file as a module and calls `{entry}`.",
                "zh": "改正上面标出的那一行；评测器把你的文件当模块导入并调用 `{entry}`。"}},
    "internal": {
        "what": {"en": "drill could not grade this — an internal error ({type} at {where}: {message}). This is not "
                       "a verdict on your file.",
                 "zh": "drill 无法评测这个文件——drill 内部出错（{type}，位置 {where}：{message}）。这不是对你代码的判定。"},
        "fix": {"en": "Nothing to change in your code for this. Please report it with the file, the command and the "
                      "`internal` block of `drill grade FILE --json`; meanwhile grade on a GPU with --device cuda if "
                      "you have one.",
                "zh": "这不需要你改代码。请把这个文件、所用命令和 `drill grade FILE --json` 输出里的 `internal` 部分一起报告；"
                      "有 GPU 的话可以先用 --device cuda 评测。"}},
    "not-checked": {
        "what": {"en": "not checked on CPU: {reason}. A GPU runs this; Triton's interpreter cannot, so no call could "
                       "be graded here. This is not a verdict on your file.",
                 "zh": "无法在 CPU 上检查：{reason}。GPU 能运行它，Triton 解释器不能，所以这里没有一次调用能被评测。"
                       "这不是对你代码的判定。"},
        "fix": {"en": "Grade it on a GPU (--device cuda), or keep this line out of the CPU path to practise here.",
                "zh": "请在 GPU 上评测（--device cuda）；想在这台机器上练习，就先别用这一行的写法。"}},
    "error-compiler": {
        "what": {"en": "Triton's compiler rejects `{kernel}`: {type}: {message}",
                 "zh": "Triton 编译器拒绝编译 `{kernel}`：{type}: {message}"},
        "fix": {"en": "The interpreter runs a kernel as Python, so this line ran here; on a GPU the compiler stops at "
                      "it before anything runs. Write it in what Triton compiles: globals as tl.constexpr (or pass "
                      "them as arguments), no break/return inside loops (fold the condition into a mask or the loop "
                      "bound), and a loop-carried value keeps its type and shape (start from tl.zeros, not 0.0).",
                "zh": "解释器把 kernel 当 Python 运行，所以这一行在这里能跑；在 GPU 上编译器会在运行之前就在这里报错。"
                      "请写成 Triton 能编译的形式：全局变量用 tl.constexpr（或作为参数传入），循环里不要 break/return"
                      "（把条件并进 mask 或循环边界），循环携带的变量类型和形状要保持不变（用 tl.zeros 起始，而不是 0.0）。"}},
    "missing-entry": {
        "what": {"en": "finding the entry point: no function `{entry}` in the file (found: {found})",
                 "zh": "找入口函数：文件里没有 `{entry}`（找到的函数：{found}）"},
        "fix": {"en": "The grader calls `{signature}`: define it with that name (rename yours, or add a wrapper).",
                "zh": "评测器调用 `{signature}`：请用这个名字定义它（改名，或加一个包装函数）。"}},
    "timeout": {
        "what": {"en": "killed after {seconds} s on {device}: the call never finished",
                 "zh": "在 {device} 上运行 {seconds} 秒后被终止：调用一直没有结束"},
        "fix": {"en": "Look for a loop whose bound never moves: a `while` in the kernel, or a grid-stride loop "
                      "that does not advance.",
                "zh": "找一个永远不结束的循环：kernel 里的 while，或者步长不前进的 grid-stride 循环。"}},
    "timeout-startup": {
        "what": {"en": "killed after {seconds} s on {device} while drill was still {stage}: your code had not run "
                       "yet (the limit is shorter than this machine takes to start a grade now)",
                 "zh": "在 {device} 上 {seconds} 秒后被终止，当时 drill 还在{stage}：你的代码还没开始运行（这个时限比本机现在"
                       "启动一次评测所需的时间还短）"},
        "fix": {"en": "Grade again with a longer --timeout, or without it (the drill's own limit).",
                "zh": "用更长的 --timeout 再评测一次，或者不加它（使用该练习自己的时限）。"}},
    "timeout-budget": {
        "what": {"en": "too slow for Triton's interpreter: even size {size} would take ~{estimate} s "
                       "({programs} programs per launch)",
                 "zh": "对 Triton 解释器来说太慢：连尺寸 {size} 都估计要 ~{estimate} 秒（每次启动 {programs} 个 program）"},
        "fix": {"en": "Launch one program per BLOCK-sized tile, with a BLOCK of a few hundred elements or more: "
                      "grid = (triton.cdiv(n, BLOCK_SIZE),).",
                "zh": "每块 BLOCK 大小的 tile 启动一个 program，BLOCK 取几百个元素以上：grid = (triton.cdiv(n, BLOCK_SIZE),)。"}},
    "crash": {
        "what": {"en": "the grading process died ({signal})", "zh": "评测进程崩溃（{signal}）"},
        "fix": {"en": "Usually an out-of-bounds access on the GPU (illegal address) or in native code. "
                      "Run `drill grade --device cpu`: the interpreter names the lane and line.",
                "zh": "通常是 GPU 上的越界访问（illegal address）或原生代码崩溃。用 `drill grade --device cpu` "
                      "再跑：解释器会指出越界的 lane 和行号。"}},
    "crash-exit": {
        "what": {"en": "the grading process ended early, with exit code {returncode} and no result",
                 "zh": "评测进程提前退出（退出码 {returncode}），没有留下结果"},
        "fix": {"en": "Does your file call os._exit() or exit() at import or in `{entry}`? Return a tensor instead.",
                "zh": "你的文件是否在导入时或 `{entry}` 里调用了 os._exit() 或 exit()？请返回张量。"}},
    "crash-cpu": {
        "what": {"en": "the grading process died ({signal})", "zh": "评测进程崩溃（{signal}）"},
        "fix": {"en": "A native crash under the interpreter: usually memory that is not a tensor's (a pointer "
                      "built from a wrong stride, or data_ptr arithmetic in Python). Check the addresses your "
                      "loads and stores compute.",
                "zh": "解释器里的原生崩溃：通常是访问了不属于任何张量的内存（步长算错得到的指针，或在 Python 里对 "
                      "data_ptr 做了运算）。检查 load/store 计算出的地址。"}},
    "torch-fallback": {
        "what": {"en": "the wrapper computes with torch ({ops}): the work must happen in your Triton kernel",
                 "zh": "wrapper 里用 torch 做了计算（{ops}）：计算必须在你的 Triton kernel 里完成"},
        "fix": {"en": "Allocate the output with torch (empty/empty_like is fine), compute only in the kernel.",
                "zh": "输出可以用 torch 分配（empty/empty_like），计算只能在 kernel 里做。"}},
    "no-kernel": {
        "what": {"en": "no Triton kernel was launched", "zh": "没有启动任何 Triton kernel"},
        "fix": {"en": "Launch it: `kernel[grid](...)` inside `{entry}`.",
                "zh": "在 `{entry}` 里用 `kernel[grid](...)` 启动 kernel。"}},
    "fusion": {
        "what": {"en": "{launches} Triton launches per call ({kernels}); this drill wants {expected}",
                 "zh": "每次调用启动了 {launches} 个 Triton kernel（{kernels}）；本题要求 {expected} 个"},
        "fix": {"en": "Do all of it in one kernel: keep the intermediate in registers, store only the result.",
                "zh": "在一个 kernel 里做完：中间结果留在寄存器里，只 store 最终结果。"}},
    "dtype": {
        "what": {"en": "output dtype is {got}, expected {expected}", "zh": "输出 dtype 是 {got}，应为 {expected}"},
        "fix": {"en": "Allocate the output like the input: `torch.empty_like(x)`.",
                "zh": "按输入分配输出：`torch.empty_like(x)`。"}},
    "shape": {
        "what": {"en": "output shape {got} on {device}, expected {expected}",
                 "zh": "输出形状 {got}（设备 {device}），应为 {expected}"},
        "fix": {"en": "Return a tensor of the reference's shape, on the input's device.",
                "zh": "返回与参考结果同形状、与输入同设备的张量。"}},
    "input-mutated": {
        "what": {"en": "input `{name}` was changed ({count} elements, first at index {first})",
                 "zh": "输入 `{name}` 被改写了（{count} 个元素，第一个在下标 {first}）"},
        "fix": {"en": "Store only into the output pointer; inputs are read-only.",
                "zh": "只往输出指针 store；输入只读。"}},
    "mask": {
        "what": {"en": "{kind} touched {lanes} lanes past the end of `{tensor}` (elements {first}..{last}, "
                       "it has {numel}), program {program}",
                 "zh": "{kind} 越过了 `{tensor}` 的末尾 {lanes} 条 lane（元素 {first}..{last}，张量只有 {numel} 个），"
                       "program {program}"},
        "fix": {"en": "mask = offsets < n_elements, and pass mask= to every tl.load and tl.store. Values can look "
                      "right without it: the tail lanes read and write memory that is not yours.",
                "zh": "mask = offsets < n_elements，并且每个 tl.load 和 tl.store 都要传 mask=。没有 mask 时数值也可能"
                      "是对的：尾块的 lane 在读写不属于你的内存。"}},
    "mask-axis": {
        "what": {"en": "the {kind} at line {line} {has}: along dim {dim} of {tensor} ({dimname}, size {size}) its "
                       "lanes reach index {last}; {lanes} of them landed outside the tensor (program {program}), and on "
                       "a GPU the rest read or write the wrong elements",
                 "zh": "第 {line} 行的 {kind} {has}：沿 {tensor} 的第 {dim} 维（{dimname}，大小 {size}），它的 lane 到达了"
                       "下标 {last}；其中 {lanes} 条落在张量之外（program {program}），在 GPU 上其余的会读写错误的元素"},
        "fix": {"en": "Give the mask of the {kind} at line {line} a term for {dimname}: the index along {dimname} must "
                      "be < {dimname}, and-ed (&) with the terms it already has, and pass it as mask=.{loop}",
                "zh": "给第 {line} 行 {kind} 的 mask 加上 {dimname} 这一项：沿 {dimname} 的下标必须 < {dimname}，和已有的项用 "
                      "& 合在一起，并作为 mask= 传入。{loop}"}},
    "strides-swap": {
        "what": {"en": "the {kind} at line {line} addresses {tensor} with index and stride from different dims: tile axis "
                       "{axis} is masked to {extent} lanes, the size of {other} (dim {other_dim}), but its pointer steps "
                       "by the stride of {dimname} (dim {dim}, size {size}); {lanes} lanes left the tensor (program "
                       "{program})",
                 "zh": "第 {line} 行的 {kind} 访问 {tensor} 时下标和 stride 来自不同的维度：tile 的第 {axis} 轴按 {other}（第 "
                       "{other_dim} 维）的大小 mask 成 {extent} 条 lane，它的指针却按 {dimname}（第 {dim} 维，大小 {size}）的 "
                       "stride 前进；{lanes} 条 lane 越出了张量（program {program}）"},
        "fix": {"en": "Pair each index with its own dim's stride: the index that runs over {other} multiplies "
                      "{ref}.stride({other_dim}), the one over {dimname} multiplies {ref}.stride({dim}); pass "
                      "the strides in the order the kernel's parameters name them.",
                "zh": "每个下标乘它自己那一维的 stride：沿 {other} 的下标乘 {ref}.stride({other_dim})，沿 {dimname} 的"
                      "乘 {ref}.stride({dim})；按 kernel 参数名的顺序传 stride。"}},
    "oob-index": {
        "what": {"en": "{kind} reached {lanes} lanes {where} `{tensor}`{close} (element {first}; it has {numel}), "
                       "program {program}: the index arithmetic, not the mask",
                 "zh": "{kind} 有 {lanes} 条 lane 访问到 `{tensor}` 之外（元素 {first}，张量只有 {numel} 个），"
                       "program {program}：是下标计算错了，不是 mask"},
        "fix": {"en": "Recompute the offsets: program pid owns pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE), and the "
                      "mask must be built from the same offsets the pointers use.",
                "zh": "重新推导 offsets：第 pid 个 program 负责 pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)，mask 必须由"
                      "指针所用的同一组 offsets 算出。"}},
    "oob-index-2d": {
        "fix": {"en": "Recompute the 2-D addresses: rows and columns from the program id(s) and tl.arange, times the "
                      "tensor's own strides (row * stride_row + col * stride_col; for a contiguous (M, N) input, "
                      "row * N + col, not row * BLOCK), masked in both dims: (rows < M)[:, None] & (cols < N)[None, :].",
                "zh": "重新推导二维地址：由 program id 和 tl.arange 得到行、列，再乘以张量自己的 stride（row * stride_row + "
                      "col * stride_col；连续的 (M, N) 输入是 row * N + col，而不是 row * BLOCK），两个维度都要 mask："
                      "(rows < M)[:, None] & (cols < N)[None, :]。"}},
    "mask-2d": {
        "fix": {"en": "Mask both dims of the tile: mask = (rows < M)[:, None] & (cols < N)[None, :] (use `&`, not "
                      "`and`), and pass it to every tl.load and tl.store; a row kernel needs cols < N.",
                "zh": "tile 的两个维度都要 mask：mask = (rows < M)[:, None] & (cols < N)[None, :]（用 `&`，不要用 "
                      "`and`），并传给每个 tl.load 和 tl.store；按行处理的 kernel 需要 cols < N。"}},
    "mask-strict-2d": {
        "fix": {"en": "Each mask must be true exactly for the lanes inside the tensor: rows < M, cols < N (and, in a "
                      "K loop, k < K) — not one fewer.",
                "zh": "每个 mask 都应恰好在 lane 落在张量之内时为真：rows < M、cols < N（K 循环里还有 k < K），不能少一个。"}},
    "shape-device": {
        "what": {"en": "`{tensor}` is allocated without device=: on a GPU machine it is created on the CPU, and the "
                       "kernel cannot use it",
                 "zh": "`{tensor}` 分配时没有指定 device=：在 GPU 机器上它会建在 CPU 上，kernel 用不了"},
        "fix": {"en": "Allocate on the input's device: torch.empty_like(x), or torch.empty(shape, device=x.device, "
                      "dtype=x.dtype).",
                "zh": "在输入所在的设备上分配：torch.empty_like(x)，或 torch.empty(shape, device=x.device, dtype=x.dtype)。"}},
    "shape-layout": {
        "what": {"en": "the output has the right shape {got} but not a contiguous layout (strides {strides}, "
                       "expected {expected_strides}), and this drill's result is a new, contiguous tensor: a view "
                       "such as .t() is not one",
                 "zh": "输出形状 {got} 是对的，但内存布局不是连续的（stride {strides}，应为 {expected_strides}），"
                       "而本题的结果必须是一个新的连续张量：.t() 之类的视图不是"},
        "fix": {"en": "Allocate the output in the result's shape (torch.empty((N, M), ...)) and have the kernel write "
                      "every element at out[row, col] = row * stride_row + col.",
                "zh": "按结果的形状分配输出（torch.empty((N, M), ...)），由 kernel 按 out[row, col] = row * stride_row + "
                      "col 写每个元素。"}},
    "shape-layout-dense": {
        "what": {"en": "the output has the right shape {got}, but its strides {strides} do not give every element one "
                       "address of its own with no gaps (PyTorch's outputs are dense and non-overlapping, in any stride "
                       "order): it is a view of a larger buffer, or elements share memory",
                 "zh": "输出形状 {got} 是对的，但它的 stride {strides} 不能让每个元素各占一个地址、中间没有空隙（PyTorch 的输出"
                       "是稠密且不重叠的，stride 顺序不限）：它是更大缓冲区的一个视图，或者元素共用了内存"},
        "fix": {"en": "Allocate the output as its own tensor: torch.empty_like(x) (any stride order is fine) or "
                      "torch.empty(shape, device=x.device, dtype=x.dtype), and return it, not a slice of a padded "
                      "buffer or an expand()ed view.",
                "zh": "把输出分配成独立的张量：torch.empty_like(x)（stride 顺序不限）或 torch.empty(shape, device=x.device, "
                      "dtype=x.dtype)，直接返回它，而不是带填充缓冲区的切片或 expand() 出来的视图。"}},
    "input-returned": {
        "what": {"en": "you returned input `{name}` itself, after writing the result into it ({count} elements "
                       "changed, first at index {first})",
                 "zh": "你返回的是输入 `{name}` 本身，并把结果写进了它（改了 {count} 个元素，第一个在下标 {first}）"},
        "fix": {"en": "Allocate a new output (torch.empty_like(x)), store into it, and return it; inputs are "
                      "read-only.",
                "zh": "分配新的输出（torch.empty_like(x)），store 到它里面并返回它；输入只读。"}},
    "returned-input": {
        "what": {"en": "you returned input `{tensor}` itself, not the output your kernel wrote",
                 "zh": "你返回的是输入 `{tensor}` 本身，而不是 kernel 写的输出"},
        "fix": {"en": "Return the tensor your kernel stores into.", "zh": "返回 kernel store 进去的那个张量。"}},
    "grid-issued": {
        "what": {"en": "the launch's {programs} programs issue store lanes for at most {coverage} elements, but the "
                       "output has {numel}: {unwritten} elements were never written",
                 "zh": "启动的 {programs} 个 program 一共只发出了 {coverage} 个元素的 store lane，而输出有 {numel} 个："
                       "{unwritten} 个元素没有被写"}},
    "grid-2d": {
        "fix": {"en": "One program per output tile, rounding up in every dim: grid = (triton.cdiv(M, BLOCK_M), "
                      "triton.cdiv(N, BLOCK_N)) — or a lambda over meta — so the partial edge tiles get programs too.",
                "zh": "每块输出 tile 一个 program，每个维度都向上取整：grid = (triton.cdiv(M, BLOCK_M), "
                      "triton.cdiv(N, BLOCK_N))（或用 lambda meta），边上不满的 tile 也要有 program。"}},
    "grid-issued-2d": {
        "what": {"en": "the launch's {programs} programs issue store lanes for at most {coverage} elements, but the "
                       "output has {numel}: {unwritten} elements (edge tiles) were never written",
                 "zh": "启动的 {programs} 个 program 一共只发出了 {coverage} 个元素的 store lane，而输出有 {numel} 个："
                       "{unwritten} 个元素（边上的 tile）没有被写"},
        "fix": {"en": "One program per output tile, rounding up in every dim: grid = (triton.cdiv(M, BLOCK_M), "
                      "triton.cdiv(N, BLOCK_N)) — or a lambda over meta — so the partial edge tiles get programs too.",
                "zh": "每块输出 tile 一个 program，每个维度都向上取整：grid = (triton.cdiv(M, BLOCK_M), "
                      "triton.cdiv(N, BLOCK_N))（或用 lambda meta），边上不满的 tile 也要有 program。"}},
    "grid-axes": {
        "what": {"en": "the grid {axes} does not match the kernel's tiles: some programs store nothing while "
                       "{unwritten} of {numel} elements are never written (axes swapped, or sized for the other dim?)",
                 "zh": "grid {axes} 和 kernel 的 tile 对不上：有的 program 什么都没写，而 {numel} 个元素里有 {unwritten} "
                       "个没有被写（维度顺序反了，或者按另一个维度算了大小？）"},
        "fix": {"en": "Axis 0 of the grid must count what tl.program_id(0) indexes: grid = (triton.cdiv(M, BLOCK_M), "
                      "triton.cdiv(N, BLOCK_N)) when pid 0 picks the row tile.",
                "zh": "grid 的第 0 维要数的是 tl.program_id(0) 索引的东西：pid 0 选行 tile 时，grid = "
                      "(triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))。"}},
    "grid-waste-repeats": {
        "what": {"en": "the launch of `{kernel}` has {programs} programs but only {distinct} distinct tiles: {repeats} "
                       "programs recompute a tile another program already stored (values right, work wasted)",
                 "zh": "`{kernel}` 启动了 {programs} 个 program，但只有 {distinct} 块不同的 tile：{repeats} 个 program "
                       "重复计算了别的 program 已经写过的 tile（数值对，但做了重复的工作）"},
        "fix": {"en": "One program per tile: a 1-D problem wants a 1-D grid, grid = (triton.cdiv(n, BLOCK_SIZE),); "
                      "every grid axis must be used by the kernel's offsets.",
                "zh": "每块 tile 一个 program：一维问题用一维 grid，grid = (triton.cdiv(n, BLOCK_SIZE),)；grid 的每个"
                      "维度都要在 kernel 的 offsets 里用到。"}},
    "grid-waste-idle": {
        "what": {"en": "the launch of `{kernel}` has {programs} programs, {idle} of which store nothing: only "
                       "{working} do the work",
                 "zh": "`{kernel}` 启动了 {programs} 个 program，其中 {idle} 个什么也没写：只有 {working} 个在干活"},
        "fix": {"en": "Launch one program per tile, not per element: grid = (triton.cdiv(n, BLOCK_SIZE),).",
                "zh": "每块 tile 启动一个 program，而不是每个元素一个：grid = (triton.cdiv(n, BLOCK_SIZE),)。"}},
    "grid-waste-overlap": {
        "what": {"en": "the launch of `{kernel}` covers {covered} elements for n = {numel}: {duplicates} elements "
                       "are stored by more than one program",
                 "zh": "`{kernel}` 的启动覆盖了 {covered} 个元素，而 n = {numel}：有 {duplicates} 个元素被多个 program "
                       "重复写"},
        "fix": {"en": "The grid and the offsets must agree: cdiv(n, BLOCK_SIZE) programs, program pid at "
                      "pid * BLOCK_SIZE.",
                "zh": "grid 和 offsets 要一致：cdiv(n, BLOCK_SIZE) 个 program，第 pid 个从 pid * BLOCK_SIZE 开始。"}},
    "mask-guard": {
        "what": {"en": "{after} elements past the end of `{tensor}` were overwritten (it has {numel})",
                 "zh": "`{tensor}` 末尾之后的 {after} 个元素被改写了（张量只有 {numel} 个）"}},
    "mask-strict": {
        "what": {"en": "the last {unwritten} elements were never written: the mask cuts the tail short",
                 "zh": "最后 {unwritten} 个元素没有写：mask 把尾块切得太多了"},
        "fix": {"en": "The mask must be true exactly for offsets < n_elements.",
                "zh": "mask 应当恰好在 offsets < n_elements 时为真。"}},
    "grid": {
        "what": {"en": "the launch covers {programs} programs x BLOCK {block} = {coverage} elements, but n = "
                       "{numel}: {unwritten} elements were never written",
                 "zh": "启动了 {programs} 个 program × BLOCK {block} = {coverage} 个元素，但 n = {numel}："
                       "{unwritten} 个元素没有被写"},
        "fix": {"en": "grid = (triton.cdiv(n_elements, BLOCK_SIZE),): round up, so the partial last tile gets "
                      "a program; a lambda over meta follows the BLOCK_SIZE actually used.",
                "zh": "grid = (triton.cdiv(n_elements, BLOCK_SIZE),)：向上取整，让不满的尾块也有 program；"
                      "用 lambda meta 可以跟随实际使用的 BLOCK_SIZE。"}},
    "offsets": {
        "what": {"en": "tiles land in the wrong place: {what}",
                 "zh": "tile 的位置不对：{what}"},
        "fix": {"en": "offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE): program pid owns tile pid.",
                "zh": "offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)：第 pid 个 program 负责第 pid 块。"}},
    "unwritten": {
        "what": {"en": "{unwritten} of {numel} output elements were never written",
                 "zh": "{numel} 个输出元素里有 {unwritten} 个没有写"},
        "fix": {"en": "Every output element needs exactly one store.", "zh": "每个输出元素都需要恰好一次 store。"}},
    "wrong-values": {
        "what": {"en": "{wrong} of {numel} elements differ from the float64 reference",
                 "zh": "{numel} 个元素里有 {wrong} 个与 float64 参考结果不一致"},
        "fix": {"en": "Check the arithmetic against the task (operator, constants, order of operations).",
                "zh": "对照题目检查计算（运算符、常数、运算顺序）。"}},
    "wrong-values-close": {
        "what": {"en": "{wrong} of {numel} values are slightly off: the worst is {ratio}x the tolerance away, and none "
                       "is NaN or far off, which is the rounding of a lower precision, not a wrong formula",
                 "zh": "{numel} 个值里有 {wrong} 个略有偏差：最大的偏差是容差的 {ratio} 倍，且没有 NaN 或大错，"
                       "这是低精度的舍入误差，不是公式错了"},
        "fix": {"en": "Keep every sum and product in float32 until the store: an accumulator from tl.zeros(..., "
                      "dtype=tl.float32), tl.dot(a, b, acc) (or acc += in float32), intermediates not cast to "
                      "float16/bfloat16, and one .to(output dtype) at the tl.store. If all of that is float32 already, "
                      "look for a constant that is slightly wrong.",
                "zh": "所有求和与乘积在 store 之前都保持 float32：累加器用 tl.zeros(..., dtype=tl.float32)，tl.dot(a, b, acc)"
                      "（或在 float32 上 acc +=），中间结果不要转成 float16/bfloat16，只在 tl.store 时 .to(输出 dtype) 一次。"
                      "如果这些都已经是 float32，就找一找是不是某个常数略有偏差。"}},
    "causal-plain": {
        "what": {"en": "right with causal=True, wrong without it ({wrong} of {numel} values): they match {mistake}",
                 "zh": "causal=True 时正确，不加 causal 时出错（{numel} 个值里有 {wrong} 个）：它们恰好等于 {mistake}"},
        "fix": {"en": "Apply the causal mask only when causal=True: pass it as a tl.constexpr (CAUSAL: tl.constexpr) and "
                      "guard the mask with `if CAUSAL:`; without it every query sees all S keys.",
                "zh": "只有 causal=True 时才加因果 mask：把它作为 tl.constexpr 传入（CAUSAL: tl.constexpr），用 `if CAUSAL:` "
                      "包住 mask；不加 causal 时每个 query 要看到全部 S 个 key。"}},
    "mistake": {
        "what": {"en": "{wrong} of {numel} values differ from the reference{on}: they match the result when {mistake}",
                 "zh": "{numel} 个值里有 {wrong} 个与参考结果不同{on_zh}：它们恰好等于这种情况的结果——{mistake}"}},
    "strides-layout-only": {
        "what": {"en": "right on the {probe} inputs, wrong on the plain contiguous ones ({wrong} of {numel} values): "
                       "the kernel assumes the probe's layout instead of reading each tensor's strides",
                 "zh": "{probe} 的输入上正确，普通连续输入上出错（{numel} 个值里有 {wrong} 个）：kernel 假设了探针的"
                       "内存布局，而不是读取每个张量自己的 stride"}},
    "strides-mistake": {
        "what": {"en": "{wrong} of {numel} values differ from the reference: they match the result when {mistake}",
                 "zh": "{numel} 个值里有 {wrong} 个与参考结果不同：它们恰好等于这种情况的结果——{mistake}"}},
    "indexing": {
        "what": {"en": "{wrong} of {numel} elements differ from the reference: values land at the wrong 2-D index",
                 "zh": "{numel} 个元素里有 {wrong} 个与参考结果不一致：值被放到了错误的二维下标上"},
        "fix": {"en": "Decompose the flat index with the OUTPUT's inner size: for an (R, C) output, col = xindex % C, "
                      "row = xindex // C; then read the input at its own strides. Square shapes hide this mistake.",
                "zh": "用输出的最内层大小分解平铺下标：输出形状 (R, C) 时 col = xindex % C，row = xindex // C；"
                      "再按输入自己的 stride 去读。方阵会掩盖这个错误。"}},
    "reduction": {
        "what": {"en": "{wrong} of {numel} reduced values differ from the float64 reference",
                 "zh": "{numel} 个归约结果里有 {wrong} 个与 float64 参考结果不一致"},
        "fix": {"en": "Reduce over the whole row, not one block: loop over the reduction dim in RBLOCK steps, mask "
                      "with rindex < N, accumulate in float32, and divide by N (not by the block size).",
                "zh": "对整行归约而不是一个 block：按 RBLOCK 步长循环归约维，用 rindex < N 做 mask，用 float32 "
                      "累加，除以 N（不是 block 大小）。"}},
    "stability": {
        "what": {"en": "correct on ordinary inputs, wrong on the {probe} inputs: {wrong} of {numel} values "
                       "overflow (exp of large numbers)",
                 "zh": "普通输入正确，{probe} 输入出错：{numel} 个值里有 {wrong} 个溢出（大数的 exp）"},
        "fix": {"en": "Subtract the row max before exp: exp(x - max(x)) never exceeds 1, and the result is the same.",
                "zh": "exp 之前先减去行最大值：exp(x - max(x)) 不会超过 1，结果不变。"}},
    "other": {
        "what": {"en": "correct on ordinary inputs, wrong on the {probe} inputs ({wrong} of {numel}): masked-off "
                       "lanes take part in the reduction",
                 "zh": "普通输入正确，{probe} 输入出错（{numel} 个里有 {wrong} 个）：被 mask 掉的 lane 参与了归约"},
        "fix": {"en": "A masked load with no other= reads 0 in the masked lanes. Give it the reduction's identity: "
                      "other=-float('inf') for a max, 0 for a sum (or tl.where(mask, x, identity) before reducing).",
                "zh": "不带 other= 的 masked load 在被 mask 的 lane 上读到 0。要给归约的单位元："
                      "max 用 other=-float('inf')，sum 用 0（或者归约前 tl.where(mask, x, 单位元)）。"}},
    "persistent-miss": {
        "what": {"en": "{unwritten} of {numel} elements were never written: {programs} programs (cap {cap}) must "
                       "together visit every tile",
                 "zh": "{numel} 个元素里有 {unwritten} 个没有写：{programs} 个 program（上限 {cap}）必须合起来覆盖每一块 tile"},
        "fix": {"en": "Loop over tiles: for tile in range(pid, num_tiles, num_programs) — start at pid, step by "
                      "tl.num_programs(0), and stop at cdiv(n, BLOCK).",
                "zh": "按 tile 循环：for tile in range(pid, num_tiles, num_programs)——从 pid 开始，步长 "
                      "tl.num_programs(0)，到 cdiv(n, BLOCK) 为止。"}},
    "masked-other": {
        "what": {"en": "the tl.load at line {line} reads {other} in its masked-off lanes, but the reduction's "
                       "identity is {identity}: {wrong} of {numel} outputs are wrong",
                 "zh": "第 {line} 行的 tl.load 在被 mask 的 lane 上读到 {other}，但归约的单位元是 {identity}："
                       "{numel} 个输出里有 {wrong} 个错"}},
    "persistent": {
        "what": {"en": "the grid must stay capped at {cap} programs that loop over the tiles: launched {programs} "
                       "programs for {tiles} tiles",
                 "zh": "grid 要限制在 {cap} 个 program 以内，由它们循环处理所有 tile：实际启动了 {programs} 个 "
                       "program 处理 {tiles} 个 tile"},
        "fix": {"en": "grid = (min(num_tiles, cap),); in the kernel: for tile in range(pid, num_tiles, "
                      "tl.num_programs(0)) — each tile exactly once, the tail tile masked.",
                "zh": "grid = (min(num_tiles, cap),)；kernel 里：for tile in range(pid, num_tiles, "
                      "tl.num_programs(0))——每个 tile 恰好一次，尾块要 mask。"}},
    "persistent-dup": {
        "what": {"en": "{duplicates} output elements were stored more than once: the programs' tile ranges overlap",
                 "zh": "有 {duplicates} 个输出元素被写了不止一次：各 program 负责的 tile 范围有重叠"}},
    "autotune-problem": {
        "none": {"en": "no @triton.autotune kernel found", "zh": "没有找到带 @triton.autotune 的 kernel"},
        "few-configs": {"en": "fewer than two configs", "zh": "config 少于两个"},
        "same-block": {"en": "every config has the same BLOCK", "zh": "所有 config 的 BLOCK 都一样"},
        "same-warps": {"en": "every config has the same num_warps", "zh": "所有 config 的 num_warps 都一样"},
        "no-key": {"en": "key is empty", "zh": "key 是空的"},
        "key-not-size": {"en": "the key names no integer size argument (e.g. n_elements)",
                         "zh": "key 里没有整数大小参数（比如 n_elements）"},
        "key-constant": {"en": "the key's value is the same at every size graded, so the tuner would never tune "
                               "again for a new n",
                         "zh": "key 的取值在所有评测尺寸上都一样，换了 n 也不会重新调优"},
        "grid-not-from-meta": {"en": "the grid does not follow the chosen BLOCK: it launches a fixed number of "
                                     "programs, not cdiv(n, meta['BLOCK_SIZE'])",
                               "zh": "grid 没有跟随选中的 BLOCK：启动的 program 数是固定的，不是 "
                                     "cdiv(n, meta['BLOCK_SIZE'])"}},
    "autotune": {
        "what": {"en": "the kernel's @triton.autotune does not meet the drill ({problem}): configs {labels}, key {keys}",
                 "zh": "kernel 的 @triton.autotune 不满足要求（{problem}）：configs {labels}，key {keys}"},
        "fix": {"en": "@triton.autotune(configs=[at least two triton.Config({{'BLOCK_SIZE': ...}}, num_warps=...) "
                      "differing in BLOCK_SIZE and num_warps], key=['n_elements']) and a grid lambda reading "
                      "meta['BLOCK_SIZE'].",
                "zh": "@triton.autotune(configs=[至少两个 BLOCK_SIZE 和 num_warps 都不同的 "
                      "triton.Config({{'BLOCK_SIZE': ...}}, num_warps=...)], key=['n_elements'])，grid 用 lambda "
                      "读取 meta['BLOCK_SIZE']。"}},
    # -- tensor-core drills (matmul, matmul-epilogue, attention): {mistake} names the known mistake matched ------------
    "strides": {
        "what": {"en": "right on fresh tensors, wrong on {probe} ({wrong} of {numel} values): the kernel assumes a "
                       "contiguous layout",
                 "zh": "新建的张量上正确，{probe} 上出错（{numel} 个值里有 {wrong} 个）：kernel 假设了连续的内存布局"},
        "fix": {"en": "Pass each tensor's own strides (x.stride(), one per dim, never another tensor's) and build every "
                      "pointer from them: base + index_along_each_dim * that dim's stride, never a size (N, K) in place "
                      "of a stride. Advance a pointer by BLOCK * that stride.",
                "zh": "传每个张量自己的 stride（x.stride()，每维一个，不要用别的张量的），每个指针都由它们计算：基址 + 每一维的下标 * "
                      "该维的 stride，不要用尺寸（N、K）代替 stride。指针前进时也要乘以这个 stride：BLOCK * stride。"}},
    "mistake": {  # a known mistake with its drill's own fix (grader.core.spec.Mistake.fix)
        "what": {"en": "{wrong} of {numel} values differ from the reference: they match the result when {mistake}",
                 "zh": "{numel} 个值里有 {wrong} 个与参考结果不同：它们恰好等于这种情况的结果——{mistake}"}},
    "k-loop": {
        "what": {"en": "{wrong} of {numel} values differ from the reference: they match the result when {mistake}",
                 "zh": "{numel} 个值里有 {wrong} 个与参考结果不同：它们恰好等于这种情况的结果——{mistake}"},
        "fix": {"en": "Loop over every block of the reduced dim, the partial last one included, mask the last block's "
                      "lanes, accumulate every step into the same float32 accumulator, and advance every pointer that "
                      "walks the reduced dim by one block each step.",
                "zh": "被归约的那一维要按块全部循环完，包括最后不满的一块，最后一块的 lane 要 mask，每一步都累加进同一个 float32 "
                      "累加器，并且每一步都让沿归约维前进的每个指针前进一块。"}},

    "epilogue": {
        "what": {"en": "{wrong} of {numel} values differ from relu(a @ b + bias): they match {mistake}",
                 "zh": "{numel} 个值里有 {wrong} 个与 relu(a @ b + bias) 不同：它们恰好等于 {mistake}"},
        "fix": {"en": "bias has one value per output column: load it at offs_n (mask offs_n < N), add bias[None, :] to "
                      "the float32 tile, then tl.maximum(acc, 0.0), then store.",
                "zh": "bias 每个输出列一个值：在 offs_n 处 load（mask 是 offs_n < N），把 bias[None, :] 加到 float32 的 tile "
                      "上，再 tl.maximum(acc, 0.0)，最后 store。"}},
    "epilogue-oob": {
        "what": {"en": "the epilogue's load of `{tensor}` reached {lanes} lanes outside it (element {first}; it has "
                       "{numel}), program {program}: bias is indexed by the wrong offsets",
                 "zh": "epilogue 里对 `{tensor}` 的 load 有 {lanes} 条 lane 越界（元素 {first}，它只有 {numel} 个），"
                       "program {program}：bias 用错了偏移"}},
    "wrong-values-tuning": {
        "what": {"en": "right with each of the {configs} configs pinned, but as @triton.autotune really runs it "
                       "(every config benchmarked on this call's own tensors, then the best one) {wrong} of {numel} "
                       "values are wrong: the benchmark runs added into the output",
                 "zh": "{configs} 个配置分别固定时都正确，但按 @triton.autotune 真实的方式运行（每个配置先在这次调用自己的"
                       "张量上跑基准，再跑最好的那个）时，{numel} 个值里有 {wrong} 个错误：基准运行把结果累加进了输出"},
        "fix": {"en": "A kernel that accumulates into its output (tl.atomic_add, split-K) must start from zero on every "
                      "run: @triton.autotune(..., reset_to_zero=['c_ptr']) zeroes it before each benchmark run (or "
                      "restore_value=[...] puts it back).",
                "zh": "累加进输出的 kernel（tl.atomic_add、split-K）每次运行都必须从零开始：@triton.autotune(..., "
                      "reset_to_zero=['c_ptr']) 会在每次基准运行前清零（或用 restore_value=[...] 恢复原值）。"}},
    "grid-map": {
        "what": {"en": "{programs} programs ran, but {unwritten} of {numel} output elements were never written: no "
                       "program computed some output tiles (the program id -> (row tile, column tile) mapping skips "
                       "them)",
                 "zh": "运行了 {programs} 个 program，但 {numel} 个输出元素里有 {unwritten} 个没有被写：有些输出 tile 没有任何"
                       " program 计算（program id 到（行 tile，列 tile）的映射漏掉了它们）"},
        "fix": {"en": "The mapping from tl.program_id to tiles must reach each of cdiv(M, BLOCK_M) x cdiv(N, BLOCK_N) "
                      "tiles exactly once. In a grouped (GROUP_M) ordering the last group can be smaller: group_size_m "
                      "= min(num_pid_m - first_pid_m, GROUP_M). With a 2-D grid, each axis counts the tiles of the dim "
                      "its program_id picks.",
                "zh": "从 tl.program_id 到 tile 的映射必须恰好覆盖 cdiv(M, BLOCK_M) x cdiv(N, BLOCK_N) 个 tile 各一次。"
                      "分组（GROUP_M）顺序里最后一组可能更小：group_size_m = min(num_pid_m - first_pid_m, GROUP_M)。"
                      "用二维 grid 时，每一维的大小要等于该维 program_id 所选那个维度的 tile 数。"}},
    "strides-oob": {
        "what": {"en": "right on fresh tensors, but on {probe} a {kind} reached {lanes} lanes past `{tensor}` "
                       "(element {first}; it has {numel}), program {program}: the kernel assumes a contiguous layout",
                 "zh": "新建的张量上正确，但在 {probe} 上 {kind} 有 {lanes} 条 lane 越过了 `{tensor}`（元素 {first}，"
                       "它只有 {numel} 个），program {program}：kernel 假设了连续的内存布局"}},
    "scale": {
        "what": {"en": "{wrong} of {numel} values differ from softmax(q k^T / sqrt(D)) v: they match attention with "
                       "{mistake}",
                 "zh": "{numel} 个值里有 {wrong} 个与 softmax(q k^T / sqrt(D)) v 不同：它们恰好等于 {mistake} 的注意力"},
        "fix": {"en": "Scores are q k^T / sqrt(D). With tl.exp2, fold log2(e) in: qk_scale = (1 / math.sqrt(D)) * "
                      "1.4426950408889634, used for the scores, the max and the exponent alike; with tl.exp, no log2(e).",
                "zh": "分数是 q k^T / sqrt(D)。用 tl.exp2 时要把 log2(e) 并进去：qk_scale = (1 / math.sqrt(D)) * "
                      "1.4426950408889634，分数、最大值和指数都用它；用 tl.exp 时不要乘 log2(e)。"}},
    "causal": {
        "what": {"en": "correct without the causal mask, wrong with causal=True ({wrong} of {numel} values): they "
                       "match {mistake}",
                 "zh": "不加 causal 时正确，causal=True 时出错（{numel} 个值里有 {wrong} 个）：它们恰好等于 {mistake}"},
        "fix": {"en": "Query i may use keys j <= i: keep = keep & (cols[None, :] <= offs_m[:, None]). Row 0 then sees "
                      "key 0, so no row is all -inf (an all -inf row makes exp2(-inf - -inf) = NaN).",
                "zh": "第 i 个 query 只能用 j <= i 的 key：keep = keep & (cols[None, :] <= offs_m[:, None])。这样第 0 行能看到 "
                      "key 0，不会有整行都是 -inf（整行 -inf 会让 exp2(-inf - -inf) = NaN）。"}},
    "rescale": {
        "what": {"en": "wrong when the running max grows from one key block to the next ({wrong} of {numel} values): "
                       "they match an online softmax where {mistake}",
                 "zh": "运行最大值在相邻 key 块之间变大时出错（{numel} 个值里有 {wrong} 个）：它们恰好等于 {mistake} 的在线 softmax"},
        "fix": {"en": "Everything accumulated so far was computed against the old max m; when a block raises it to m', "
                      "scale both by alpha = exp2(m - m'): l = l * alpha + tl.sum(p, 1) and acc = acc * alpha[:, None] "
                      "+ p @ v.",
                "zh": "之前累加的一切都是相对旧的最大值 m 算的；某个块把最大值提高到 m' 时，两者都要乘 alpha = exp2(m - m')："
                      "l = l * alpha + tl.sum(p, 1)，acc = acc * alpha[:, None] + p @ v。"}},
    "stale-output": {
        "what": {"en": "the second call reused or overwrote the first call's output",
                 "zh": "第二次调用复用或改写了第一次调用的输出"},
        "fix": {"en": "Allocate a fresh output on every call.", "zh": "每次调用都分配新的输出。"}},
}


# Check names (JSON keeps the English name; the report shows them in the learner's language).
CHECK_NAMES_ZH = {
    "drill graded this": "drill 完成了评测",
    "checked on CPU": "在 CPU 上检查",
    "runs without error": "运行无错误", "computes in a Triton kernel": "计算在 Triton kernel 里完成",
    "output dtype and shape": "输出 dtype 和形状", "memory accesses in bounds": "访存不越界",
    "inputs unchanged": "输入未被修改", "every output element written": "每个输出元素都写了",
    "values match the float64 reference": "数值与 float64 参考一致", "second call gets a fresh output": "第二次调用得到新的输出",
    "holes filled": "空位已填", "file": "文件", "finishes in time": "按时结束", "runs without crashing": "运行不崩溃",
    "faster than eager (CUDA)": "比 eager 快（CUDA）", "bytes moved within the fused model": "搬运字节不超过融合模型",
    "stores only the output": "只 store 输出本身", "no program's work wasted": "没有 program 做无用功",
    "grid capped, each tile stored once": "grid 有上限，每块 tile 只写一次",
    "autotuned over BLOCK and num_warps": "autotune 覆盖不同的 BLOCK 和 num_warps",
    "import": "导入文件", "entry": "入口函数", "grade": "评测", "device": "设备",
}


def check_name(name: str, lang: str) -> str:
    return CHECK_NAMES_ZH.get(name, name) if lang == "zh" else name


CHECK_DETAILS_ZH = [  # the runner's check details (grader/run/runner.py), in Chinese
    (re.compile(r"^(\d+)/(\d+) calls failed, first at size (\S+) on (\w+)$"), r"\2 次调用中 \1 次失败，首次在尺寸 \3（\4）"),
    (re.compile(r"^(\d+)/(\d+) calls$"), r"\1/\2 次调用"),
    (re.compile(r"^killed after (\S+) s on (\w+)$"), r"\1 秒后被终止（\2）"),
    (re.compile(r"^syntax error at line (\d+)$"), r"第 \1 行有语法错误"),
    (re.compile(r"^the grading process died \((.+)\)$"), r"评测进程意外退出（\1）"),
]


def check_detail(detail: str, lang: str) -> str:
    if lang != "zh":
        return detail
    for pattern, zh in CHECK_DETAILS_ZH:
        if pattern.match(detail):
            return pattern.sub(zh, detail)
    return detail


def t(key: str, lang: str, **kw) -> str:
    return pick(M[key], lang).format(**kw)


# Fused drills (bytes proof, speed gate): kept in their own module, merged here.
from grader.reporting.fusion_texts import DIAGNOSES as _FUSION_DIAGNOSES, M as _FUSION_M  # noqa: E402

DIAGNOSES.update(_FUSION_DIAGNOSES)
M.update(_FUSION_M)

# A device's launch limits and the heuristic's contract (grader/families/limits.py): their own module, merged here.
from grader.reporting.limits_texts import CHECK_NAMES_ZH as _LIMITS_CHECKS, DIAGNOSES as _LIMITS_DIAGNOSES, M as _LIMITS_M  # noqa: E402

DIAGNOSES.update(_LIMITS_DIAGNOSES)
M.update(_LIMITS_M)
CHECK_NAMES_ZH.update(_LIMITS_CHECKS)

# Training drills (grader/families/training.py): their own module, merged here.
from grader.reporting.training_texts import CHECK_NAMES_ZH as _TRAINING_CHECKS  # noqa: E402

CHECK_NAMES_ZH.update(_TRAINING_CHECKS)

# Compile labs (grader/families/compiled.py): their own module, merged here.
from grader.reporting.compiled_texts import CHECK_NAMES_ZH as _COMPILED_CHECKS, DIAGNOSES as _COMPILED_DIAGNOSES, M as _COMPILED_M  # noqa: E402

DIAGNOSES.update(_COMPILED_DIAGNOSES)
M.update(_COMPILED_M)
CHECK_NAMES_ZH.update(_COMPILED_CHECKS)
