"""Learner-facing strings (en + zh) for the fusion evidence: the bytes proof and the speed gate.

Merged into grader.reporting.i18n's DIAGNOSES / M at import time, so the shared tables stay small.
"""
from __future__ import annotations

DIAGNOSES = {
    "fusion-bytes": {
        "what": {"en": "one launch, but each call moved {moved} bytes at n={n}: a fused kernel moves {fused} "
                       "({fused_formula}), eager {eager} ({eager_formula}). The extra {extra} bytes: {intermediate} "
                       "written to memory and read back",
                 "zh": "只启动了一个 kernel，但 n={n} 时每次调用搬运了 {moved} 字节：融合 kernel 只需 {fused}"
                       "（{fused_formula}），eager 是 {eager}（{eager_formula}）。多出的 {extra} 字节："
                       "{intermediate} 被写回显存又读了回来"},
        "fix": {"en": "Keep {intermediate} in registers: compute it and use it in the same program, and store only "
                      "the result. A store followed by a load of the same addresses is a round trip through HBM, "
                      "even inside one kernel.",
                "zh": "让 {intermediate} 留在寄存器里：在同一个 program 里算出来就直接用，只 store 最终结果。"
                      "先 store 再 load 同一地址就是一次经过 HBM 的往返，哪怕在同一个 kernel 里。"}},
    "fusion-bytes-where": {
        "what": {"en": "one launch, but each call moved {moved} bytes at n={n}: a fused kernel moves {fused} "
                       "({fused_formula}), eager {eager} ({eager_formula}). The extra {extra} bytes: {where}. That is the "
                       "round trip eager makes with {intermediate} (written to memory and read back); a fused kernel "
                       "keeps it in registers",
                 "zh": "只启动了一个 kernel，但 n={n} 时每次调用搬运了 {moved} 字节：融合 kernel 只需 {fused}"
                       "（{fused_formula}），eager 是 {eager}（{eager_formula}）。多出的 {extra} 字节：{where}。这正是 eager 对 "
                       "{intermediate} 做的往返（写回显存再读回来）；融合 kernel 会把它留在寄存器里"}},
    "fusion-stored": {
        "what": {"en": "one launch, but besides the output ({output_stored} B) each call at n={n} {where}: a buffer "
                       "that grows with the problem went to memory, where a fused kernel keeps {intermediate} in "
                       "registers",
                 "zh": "只启动了一个 kernel，但 n={n} 时每次调用除了输出（{output_stored} B）之外还{where}：一个随问题规模"
                       "增长的缓冲区写到了显存里，而融合 kernel 会把 {intermediate} 留在寄存器里"},
        "fix": {"en": "Keep {intermediate} in registers (the accumulator tile): apply the rest to it in the same "
                      "program and store only the final output tile.",
                "zh": "让 {intermediate} 留在寄存器里（累加器 tile）：在同一个 program 里接着算完，只 store 最终的输出 tile。"}},
    "too-slow": {
        "what": {"en": "correct, but only {speedup}x faster than eager at {at} ({cand} µs vs {eager_t} µs); "
                       "this drill wants at least {need}x",
                 "zh": "结果正确，但 {at} 时只比 eager 快 {speedup} 倍（{cand} µs 对 {eager_t} µs）；本题要求至少 "
                       "{need} 倍"},
        "fix": {"en": "This op is memory-bound: time is bytes moved. One kernel, no scratch buffer, BLOCK_SIZE of "
                      "at least 512, and nothing else in the wrapper (no copies, .contiguous(), synchronize).",
                "zh": "这是访存受限的算子：时间取决于搬运的字节数。一个 kernel、不用临时缓冲、BLOCK_SIZE 至少 512，"
                      "wrapper 里不做别的事（不拷贝、不 .contiguous()、不 synchronize）。"}},
    "too-slow-compute": {
        "what": {"en": "correct, but at {at} it runs at {speedup}x the speed of eager ({cand} µs vs {eager_t} µs, "
                       "{tflops} TFLOPS); this drill wants at least {need}x",
                 "zh": "结果正确，但 {at} 时速度只有 eager 的 {speedup} 倍（{cand} µs 对 {eager_t} µs，{tflops} TFLOPS）；"
                       "本题要求至少 {need} 倍"},
        "fix": {"en": "This op is compute-bound: time is how fast the tensor cores multiply. tl.dot on the float16 "
                      "tiles as loaded (a tl.sum of products runs on the FMA units, and float32 inputs to tl.dot run "
                      "as tf32 at half the rate, or on the FMA units with input_precision=\"ieee\"), a float32 "
                      "accumulator, tiles of at least 64x64 with BLOCK_K >= 32, num_warps 4-8 and num_stages 3-4 so "
                      "loads overlap the dots.",
                "zh": "这是计算受限的算子：时间取决于 tensor core 乘得多快。直接对加载进来的 float16 tile 做 tl.dot"
                      "（乘积再 tl.sum 会跑在 FMA 单元上；float32 输入的 tl.dot 以 tf32 运行，速度减半，"
                      "input_precision=\"ieee\" 时则跑在 FMA 单元上），累加器用 float32，tile 至少 64x64、"
                      "BLOCK_K >= 32，num_warps 4-8、num_stages 3-4，让加载和 dot 重叠。"}},
    "too-slow-bar": {
        "what": {"en": "correct, but at {at} it runs at {speedup}x the speed of {bar} ({cand} µs vs {eager_t} µs); "
                       "this drill wants at least {need}x",
                 "zh": "结果正确，但 {at} 时速度只有 {bar} 的 {speedup} 倍（{cand} µs 对 {eager_t} µs）；本题要求至少 "
                       "{need} 倍"},
        "fix": {"en": "Time the schedule, not the formula: `drill bench {drill}` shows where your kernel falls "
                      "behind, and `drill hint {drill}` how the reference schedules this op.",
                "zh": "慢的是调度，不是公式：`drill bench {drill}` 显示你的 kernel 在哪些规模落后，"
                      "`drill hint {drill}` 讲参考解怎样调度这个算子。"}},
    "impossible-time-compute": {
        "what": {"en": "timed at {cand} µs at {at}, faster than this GPU's tensor cores can do its {flops} "
                       "floating-point operations ({peak} TFLOPS peak): the time does not measure the work",
                 "zh": "{at} 时测得 {cand} µs，比这块 GPU 的 tensor core 以峰值（{peak} TFLOPS）完成它的 {flops} 次浮点运算"
                       "还快：这个时间没有测到真正的工作"},
        "fix": {"en": "Compute on every call, on the current stream: no results cached between calls, no work "
                      "left running on another stream.",
                "zh": "每次调用都要真正计算，并在当前 stream 上完成：不要在调用之间缓存结果，也不要把工作放到别的 "
                      "stream 上。"}},
    "impossible-time": {
        "what": {"en": "timed at {cand} µs at {at}, faster than moving its {nbytes} bytes at this GPU's measured "
                       "copy bandwidth ({copy} GB/s) allows: the time does not measure the work",
                 "zh": "{at} 时测得 {cand} µs，比本机实测拷贝带宽（{copy} GB/s）搬运 {nbytes} 字节所需的时间还短："
                       "这个时间没有测到真正的工作"},
        "fix": {"en": "Compute on every call, on the current stream: no results cached between calls, no work "
                      "left running on another stream.",
                "zh": "每次调用都要真正计算，并在当前 stream 上完成：不要在调用之间缓存结果，也不要把工作放到别的 "
                      "stream 上。"}},
}

M = {
    "bytes_proof": {
        "en": "bytes proof (interpreter, n={n}): moved {moved} B; fused model {fused} B ({fused_formula}), eager "
              "{eager} B ({eager_formula}). Fusion saves {intermediate} written to HBM and read back: {saved} B.",
        "zh": "字节证明（解释器，n={n}）：实际搬运 {moved} B；融合模型 {fused} B（{fused_formula}），eager {eager} B"
              "（{eager_formula}）。融合省下的是 {intermediate} 写回 HBM 再读回来的往返：{saved} B。"},
    "stored_proof": {
        "en": "stores proof (interpreter, n={n}): each call stored the output ({output} B){side}: {intermediate} "
              "never went to memory.",
        "zh": "存储证明（解释器，n={n}）：每次调用只 store 了输出本身（{output} B）{side}：{intermediate} 从没写到显存。"},
    "bytes_stand_in": {
        "en": "Speed is timed on a GPU only; here the bytes proof stands in for it (this op is memory-bound: "
              "time follows bytes).",
        "zh": "速度只在 GPU 上测；这里用字节证明代替（这个算子受访存限制：时间跟着字节数走）。"},
    "speed_title": {"en": "speed at {at} (median of {rounds} rounds of do_bench medians, L2 flushed):",
                    "zh": "{at} 时的速度（{rounds} 轮 do_bench 中位数的中位数，已清 L2）："},
    "speed_cols": {"en": ("", "µs", "GB/s*", "% peak", "vs yours"), "zh": ("", "µs", "GB/s*", "占峰值", "相对你的")},
    "speed_cols_flops": {"en": ("", "µs", "TFLOPS", "% peak", "vs yours"), "zh": ("", "µs", "TFLOPS", "占峰值", "相对你的")},
    "speed_note_flops": {
        "en": "TFLOPS = {flops} floating-point operations of one call / its time; % peak = of the GPU's dense fp16 "
              "tensor-core peak ({peak} TFLOPS, no sparsity).",
        "zh": "TFLOPS = 一次调用的 {flops} 次浮点运算 / 用时；占峰值 = 占这块 GPU 稠密 fp16 tensor core 峰值（{peak} TFLOPS，"
              "不含稀疏）的比例。"},
    "speed_note": {
        "en": "* effective GB/s = the fused byte model ({fused} B) / time; % peak = of this GPU's spec bandwidth "
              "({peak}), the physical limit. Copy at the same n (the faster of x.clone() and a Triton copy"
              "{cached}): {copy} GB/s.",
        "zh": "* 有效带宽 = 融合字节模型（{fused} B）/ 时间；占峰值 = 占本 GPU 标称带宽（{peak}）的比例，这是物理上限。"
              "同一 n 下的拷贝（x.clone() 与 Triton 拷贝 kernel 中较快的一个{cached}）：{copy} GB/s。"},
    "speedup_line": {"en": "speedup over eager {speedup}x (gate {need}x; the byte model predicts {model}x)",
                     "zh": "相对 eager 加速 {speedup} 倍（门槛 {need} 倍；字节模型预测 {model} 倍）"},
    "speedup_line_bar": {"en": "speed vs {bar} {speedup}x (gate {need}x)",
                         "zh": "相对 {bar} 的速度 {speedup} 倍（门槛 {need} 倍）"},
    "speedup_line_flops": {"en": "speedup over eager {speedup}x (gate {need}x)",
                           "zh": "相对 eager 加速 {speedup} 倍（门槛 {need} 倍）"},
    "small_line": {
        "en": "{at}: device time yours {dc} µs vs eager {de} µs; host wall time per call {wc} µs vs {we} µs",
        "zh": "{at}：设备时间 你的 {dc} µs 对 eager {de} µs；每次调用的主机墙钟时间 {wc} µs 对 {we} µs"},
    "launch_bound": {
        "en": "They disagree: at this size the call is launch-bound. Triton's Python launcher costs more than the "
              "kernel; replaying a CUDA graph removes it (H200, n = 1e5: fused 1.3-1.4 µs vs eager 2.7-4.3 µs per replay, over two runs).",
        "zh": "两者结论相反：这个尺寸下调用受启动开销限制。Triton 的 Python 启动比 kernel 本身还贵；"
              "用 CUDA graph 重放可以去掉这部分开销（H200 实测，n = 1e5，两次运行：每次重放融合 1.3–1.4 µs，eager 2.7–4.3 µs）。"},
}
