"""Learner-facing texts of grader/families/compiled.py (compile labs: Dynamo's breaks and recompiles, opcheck, the
gradient, Inductor's output), in English and Chinese. Merged into grader/reporting/i18n.py's tables, like
limits_texts. A drill's own fix for one hole or category is `fixes:` under the drill in prompts.yaml."""
from __future__ import annotations

DIAGNOSES = {
    "graph-break": {
        "what": {"en": "torch.compile(fullgraph=True) fails: Dynamo breaks the graph at line {line}: {reason}"
                       "{explanation}{more}",
                 "zh": "torch.compile(fullgraph=True) 失败：Dynamo 在第 {line} 行断图：{reason}{explanation}{more}"},
        "fix": {"en": "Rewrite that line with torch operations Dynamo can put in a graph: values stay tensors (no "
                      ".item(), no Python if on them), no print, no library Dynamo cannot trace. Check with "
                      "torch._dynamo.explain({entry})(...).",
                "zh": "把这一行改写成 Dynamo 能放进图里的 torch 运算：数值保持为张量（不用 .item()，不在 Python if 里用"
                      "它们），不 print，不调用 Dynamo 追踪不了的库。用 torch._dynamo.explain({entry})(...) 检查。"}},
    "recompile": {
        "what": {"en": "Dynamo compiles {compiles} times over the shapes {shapes} (marked dynamic): guard `{reason}` "
                       "failed (line {line}: `{code}`){more}",
                 "zh": "在形状 {shapes}（已标记为动态）上 Dynamo 编译了 {compiles} 次：guard `{reason}` 不成立"
                       "（第 {line} 行：`{code}`）{more}"},
        "fix": {"en": "Take what the guard tests out of the compiled function: a Python value that changes every "
                      "call (a growing list, a counter), or a branch on a size marked dynamic. Check with "
                      "TORCH_LOGS=recompiles.",
                "zh": "把 guard 检查的东西移出被编译的函数：每次调用都会变的 Python 值（不断变长的 list、计数器），"
                      "或者对已标记为动态的尺寸做的分支。用 TORCH_LOGS=recompiles 检查。"}},
    "registration": {
        "what": {"en": "no operator {op} is registered: torch.ops has no {op}, so opcheck and torch.compile cannot "
                       "see your kernel as an operator",
                 "zh": "没有注册算子 {op}：torch.ops 里没有 {op}，opcheck 和 torch.compile 都看不到你的 kernel 是一个算子"},
        "fix": {"en": "Decorate the function with @torch.library.triton_op(\"{op}\", mutates_args=()).",
                "zh": "给这个函数加上 @torch.library.triton_op(\"{op}\", mutates_args=())。"}},
    "registration-opcheck": {
        "what": {"en": "torch.library.opcheck's {test} fails: {reason}",
                 "zh": "torch.library.opcheck 的 {test} 失败：{reason}"}},
    "fake": {
        "what": {"en": "torch.library.opcheck's {test} fails: the operator has no fake (meta) implementation, so "
                       "tracing cannot know its output without running it: {reason}",
                 "zh": "torch.library.opcheck 的 {test} 失败：算子没有 fake（meta）实现，追踪时不运行它就不知道输出："
                       "{reason}"},
        "fix": {"en": "Use @torch.library.triton_op (its function is its own fake: allocate the output with torch ops, "
                      "launch through wrap_triton), or give the custom_op a @{name}.register_fake that returns "
                      "torch.empty_like(x).",
                "zh": "改用 @torch.library.triton_op（函数本身就是 fake：用 torch 运算分配输出，通过 wrap_triton 启动），"
                      "或者给 custom_op 加上 @{name}.register_fake，返回 torch.empty_like(x)。"}},
    "wrap": {
        "what": {"en": "torch.library.opcheck's {test} fails: tracing reached a raw Triton launch on FakeTensors: "
                       "{reason}",
                 "zh": "torch.library.opcheck 的 {test} 失败：追踪时在 FakeTensor 上碰到了直接的 Triton 启动：{reason}"},
        "fix": {"en": "Inside a triton_op launch every kernel as wrap_triton(kernel)[grid](...): tracing then records "
                      "the launch instead of running it.",
                "zh": "在 triton_op 里每个 kernel 都要这样启动：wrap_triton(kernel)[grid](...)，追踪时才会记录这次启动"
                      "而不是去运行它。"}},
    "autograd": {
        "what": {"en": "the gradient of input {input} is wrong ({stage}): {wrong} of {numel} elements differ from "
                       "torch.relu's float64 gradient{mistake}",
                 "zh": "第 {input} 个输入的梯度不对（{stage}）：{numel} 个元素里有 {wrong} 个与 float64 参考梯度不一致"
                       "{mistake}"},
        "fix": {"en": "register_autograd(backward, setup_context=setup_context): backward returns one gradient per "
                      "input, grad times the local derivative.",
                "zh": "register_autograd(backward, setup_context=setup_context)：backward 为每个输入返回一个梯度，"
                      "即 grad 乘以局部导数。"}},
    "autograd-error": {
        "what": {"en": "backward through the operator fails ({stage}): {message}",
                 "zh": "对算子求反向失败（{stage}）：{message}"}},
    "autograd-opcheck": {
        "what": {"en": "torch.library.opcheck's {test} fails: {reason}",
                 "zh": "torch.library.opcheck 的 {test} 失败：{reason}"}},
    "compiled-values": {
        "what": {"en": "the compiled function's values differ from the float64 reference at size {size}: {wrong} of "
                       "{numel} elements, although eager's match",
                 "zh": "编译后的函数在尺寸 {size} 上的数值与 float64 参考不一致：{numel} 个元素里有 {wrong} 个，"
                       "而 eager 是对的"},
        "fix": {"en": "Something differs between eager and traced execution: a Python value read once at trace time "
                      "(a global, a list) that the compiled graph keeps as a constant.",
                "zh": "eager 和追踪后的执行有不同：某个 Python 值（全局变量、list）在追踪时只读了一次，被编译后的图当成常量。"}},
    "inductor": {
        "what": {"en": "Inductor's output code does not launch your kernel ({kernels}){error}",
                 "zh": "Inductor 生成的代码没有启动你的 kernel（{kernels}）{error}"},
        "fix": {"en": "A torch.library.custom_op is opaque to Inductor; a triton_op with wrap_triton keeps the kernel "
                      "visible, and Inductor launches it beside its own.",
                "zh": "torch.library.custom_op 对 Inductor 是不透明的；用 triton_op 加 wrap_triton，kernel 保持可见，"
                      "Inductor 会在自己的 kernel 旁边启动它。"}},
}

M = {
    "compile_seen": {"en": "What Dynamo saw ({backend}; {graphs} graph(s), {breaks} break(s), {compiles} compile(s)"
                           " over {shapes}):",
                     "zh": "Dynamo 看到的（{backend}；{graphs} 张图，{breaks} 处断图，在 {shapes} 上编译 {compiles} 次）："},
    "compile_break": {"en": "  line {line}: graph break: {reason}{explanation}",
                      "zh": "  第 {line} 行：断图：{reason}{explanation}"},
    "compile_recompile": {"en": "  line {line}: recompile: guard `{reason}` failed",
                          "zh": "  第 {line} 行：重新编译：guard `{reason}` 不成立"},
    "compile_opcheck": {"en": "  opcheck {test}: {result}", "zh": "  opcheck {test}：{result}"},
    "compile_inductor": {"en": "Inductor's output code on {device} (your kernel: {found}):",
                         "zh": "Inductor 在 {device} 上生成的代码（你的 kernel：{found}）："},
    "compile_cpu_note": {"en": "On CPU Inductor emits C++, so whether Inductor launches your kernel is checked on a "
                               "GPU only; here the compile checks ran with backend aot_eager.",
                         "zh": "CPU 上 Inductor 生成 C++，所以 Inductor 是否启动你的 kernel 只在 GPU 上检查；这里的编译检查"
                               "用的是 aot_eager 后端。"},
    "compile_more": {"en": "; {n} more below", "zh": "；下面还有 {n} 处"},
}

CHECK_NAMES_ZH = {
    "operator registered": "算子已注册",
    "opcheck passes": "opcheck 通过",
    "no graph break (fullgraph=True)": "没有断图（fullgraph=True）",
    "no recompile over the shapes": "在这些形状上不重新编译",
    "gradient matches": "梯度一致",
    "compiled values match": "编译后数值一致",
    "Inductor launches your kernel (CUDA)": "Inductor 启动了你的 kernel（CUDA）",
}
