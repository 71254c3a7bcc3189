"""Texts for the training drills' diagnoses (grader/families/training.py), English and Chinese.

`{grad_of}` is the gradient the evidence is about (x.grad, weight.grad, ...), `{mistake}` the known mistake matched.
"""
from __future__ import annotations

DIAGNOSES = {
    "autograd-no-graph": {
        "what": {"en": "the tensor `{entry}` returns has no autograd graph, so y.backward(dy) has nothing to run "
                       "(it does not require grad although its inputs do)",
                 "zh": "`{entry}` 返回的张量没有 autograd 图，y.backward(dy) 无从执行（输入 requires_grad，输出却不需要梯度）"},
        "fix": {"en": "Write a torch.autograd.Function (forward and backward as @staticmethods that launch your kernels, "
                      "ctx.save_for_backward for what backward needs) and return Function.apply(...) from `{entry}`; "
                      "never call .forward yourself or run it under torch.no_grad().",
                "zh": "写一个 torch.autograd.Function（forward 和 backward 都是 @staticmethod，各自启动你的 kernel，"
                      "用 ctx.save_for_backward 保存 backward 需要的东西），`{entry}` 里返回 Function.apply(...)；"
                      "不要自己调用 .forward，也不要放在 torch.no_grad() 里。"}},
    "autograd-none-returned": {
        "what": {"en": "the backward returned None for {tensors}: that gradient never arrives",
                 "zh": "backward 对 {tensors} 返回了 None：这个梯度永远到不了"},
        "fix": {"en": "backward returns one gradient per argument of forward, in order; None only for arguments that "
                      "are not tensors (eps).",
                "zh": "backward 要按 forward 参数的顺序每个参数返回一个梯度；只有非张量参数（eps）才返回 None。"}},
    "variance": {
        "what": {"en": "{wrong} of {numel} values of y differ from the reference: they match the result when "
                       "{mistake}",
                 "zh": "y 的 {numel} 个值里有 {wrong} 个与参考结果不同：它们恰好等于这种情况的结果——{mistake}"},
        "fix": {"en": "LayerNorm normalises with the biased variance, var = sum((x - mean)^2) / N over the row's N real "
                      "elements, and rstd = 1 / sqrt(var + eps), as torch.nn.functional.layer_norm does.",
                "zh": "LayerNorm 用有偏方差：var = sum((x - mean)^2) / N（只算一行里 N 个真实元素），"
                      "rstd = 1 / sqrt(var + eps)，与 torch.nn.functional.layer_norm 一致。"}},
    "cancellation": {
        "what": {"en": "right on ordinary rows, wrong on the {probe} rows ({wrong} of {numel} values): the variance "
                       "lost its digits (E[x^2] - E[x]^2 of two nearly equal numbers)",
                 "zh": "普通行正确，{probe} 的行出错（{numel} 个值里有 {wrong} 个）：方差的有效数字丢了"
                       "（E[x^2] - E[x]^2 是两个几乎相等的数相减）"},
        "fix": {"en": "Compute the variance around the mean in a second pass, sum((x - mean)^2) / N (or Welford's "
                      "update), not E[x^2] - E[x]^2: with a mean of 1000 in float32 both terms are ~1e6 and their "
                      "difference of ~1 keeps almost no correct bits.",
                "zh": "先求均值，再第二遍算 sum((x - mean)^2) / N（或者用 Welford 递推），不要用 E[x^2] - E[x]^2："
                      "float32 下均值 1000 时两项都约为 1e6，相减得到的 1 左右几乎没有正确的位。"}},
    "dx": {
        "what": {"en": "y is right, but {wrong} of {numel} values of x.grad differ from float64 autograd",
                 "zh": "y 正确，但 x.grad 的 {numel} 个值里有 {wrong} 个与 float64 autograd 不同"},
        "fix": {"en": "dx = rstd * (w*dy - (xhat * mean(xhat * w*dy) + mean(w*dy))): the two row means are the "
                      "gradients through rstd and through the mean, each over the N real elements (masked lanes "
                      "count 0), with the rstd and mean the forward saved.",
                "zh": "dx = rstd * (w*dy - (xhat * mean(xhat * w*dy) + mean(w*dy)))：两个行均值分别是经过 rstd 和经过 mean "
                      "的梯度，都只对 N 个真实元素求（被 mask 的 lane 记 0），rstd 和 mean 用 forward 保存的。"}},
    "dx-mistake": {
        "what": {"en": "y is right, but {wrong} of {numel} values of x.grad differ from float64 autograd: they match "
                       "{mistake}",
                 "zh": "y 正确，但 x.grad 的 {numel} 个值里有 {wrong} 个与 float64 autograd 不同：它们恰好等于——{mistake}"}},
    "dwdb": {
        "what": {"en": "y and x.grad are right, but {wrong} of {numel} values of {grad_of} differ from float64 "
                       "autograd",
                 "zh": "y 和 x.grad 正确，但 {grad_of} 的 {numel} 个值里有 {wrong} 个与 float64 autograd 不同"},
        "fix": {"en": "weight.grad = sum over ALL M rows of dy * xhat, bias.grad = sum over all rows of dy. Rows live "
                      "in different programs: every program's partial sum must reach the total — add into the "
                      "partial rows (under the lock, or with tl.atomic_add), then sum every partial row in the "
                      "second kernel.",
                "zh": "weight.grad = 对全部 M 行求 dy * xhat 之和，bias.grad = 对全部行求 dy 之和。各行在不同 program 里："
                      "每个 program 的部分和都必须进入总和——往部分和行里累加（在锁里，或用 tl.atomic_add），"
                      "再由第二个 kernel 把所有部分和行加起来。"}},
    "dwdb-mistake": {
        "what": {"en": "y and x.grad are right, but {wrong} of {numel} values of {grad_of} differ from float64 "
                       "autograd: they match {mistake}",
                 "zh": "y 和 x.grad 正确，但 {grad_of} 的 {numel} 个值里有 {wrong} 个与 float64 autograd 不同："
                       "它们恰好等于——{mistake}"}},
    "race": {
        "what": {"en": "the values are right here, but in the launch of `{kernel}` (line {line}) {programs} programs "
                       "store to the same {elements} elements of `{tensor}` with no atomic operation in that launch: "
                       "the interpreter runs programs one at a time, a GPU runs them at once and loses partial sums",
                 "zh": "这里的数值正确，但 `{kernel}`（第 {line} 行启动）里 {programs} 个 program 往 `{tensor}` 的同样 "
                       "{elements} 个元素 store，这次启动里没有任何原子操作：解释器一个一个地跑 program，"
                       "GPU 上它们同时跑，部分和会丢"}},
    "race-fix": {
        "fix": {"en": "Make the load-add-store of a shared partial row exclusive: spin on tl.atomic_cas(Lock, 0, 1), "
                      "add and store, then tl.atomic_xchg(Lock, 0) (Triton tutorial 05); or add with tl.atomic_add "
                      "(order, hence the last bits, then vary run to run); or give each program its own partial row "
                      "and sum them in a second kernel (deterministic).",
                "zh": "让共享部分和行的 load-加-store 互斥：用 tl.atomic_cas(Lock, 0, 1) 自旋加锁，加完 store，"
                      "再 tl.atomic_xchg(Lock, 0) 释放（Triton 教程 05）；或者用 tl.atomic_add 累加"
                      "（顺序不定，最后几位每次运行可能不同）；或者每个 program 一行自己的部分和，"
                      "再用第二个 kernel 求和（结果确定）。"}},
    "grad-values": {
        "what": {"en": "y is right, but {wrong} of {numel} values of {grad_of} differ from float64 autograd "
                       "(after y.backward(dy))",
                 "zh": "y 正确，但 {grad_of} 的 {numel} 个值里有 {wrong} 个与 float64 autograd 不同（y.backward(dy) 之后）"}},
    # -- the fused cross-entropy (drills/cross_entropy_spec.py) --------------------------------------------------
    "grad-mistake": {
        "what": {"en": "the output of `{entry}` is right, but {wrong} of {numel} values of {grad_of} differ from "
                       "float64 autograd: they match the gradient when {mistake}",
                 "zh": "`{entry}` 的输出正确，但 {grad_of} 的 {numel} 个值里有 {wrong} 个与 float64 autograd 不同："
                       "它们恰好等于这种情况下的梯度——{mistake}"}},
    "grad-scale": {
        "fix": {"en": "logits.grad = dy * (softmax(x) - one_hot(target)) / n_valid on every row that counts, 0 on an "
                      "ignored row: the mean's 1 / n_valid and the loss's grad_output dy both scale it (dy is 1 after "
                      "a plain loss.backward(), not in general: multiply in a kernel, and skip only when it is 1).",
                "zh": "logits.grad = dy * (softmax(x) - one_hot(target)) / n_valid（计入的每一行），被忽略的行为 0："
                      "均值的 1 / n_valid 和 loss 的 grad_output dy 都要乘上（普通 loss.backward() 里 dy 是 1，"
                      "一般情况下不是：在 kernel 里乘，只有等于 1 时才可以跳过）。"}},
    "ignore-index": {
        "what": {"en": "the output of `{entry}` is right, but {wrong} of {numel} values of {grad_of} differ from "
                       "float64 autograd on the {probe} inputs",
                 "zh": "`{entry}` 的输出正确，但在 {probe} 输入上 {grad_of} 的 {numel} 个值里有 {wrong} 个与 float64 "
                       "autograd 不同"},
        "fix": {"en": "A row whose target is ignore_index adds nothing: no loss, a zero gradient row, and it is not "
                      "counted in n_valid; the mean and the gradient divide by n_valid, the rows that count (an "
                      "all-ignored batch is 0 / 0 = NaN with an all-zero gradient, as F.cross_entropy gives).",
                "zh": "target 等于 ignore_index 的行不贡献任何东西：没有 loss，梯度整行为 0，也不计入 n_valid；均值和梯度都"
                      "除以 n_valid（计入的行数）。全部被忽略的批次是 0 / 0 = NaN，梯度全 0，与 F.cross_entropy 一致。"}},
    "gradient": {
        "what": {"en": "the output of `{entry}` is right, but {wrong} of {numel} values of {grad_of} differ from "
                       "float64 autograd (after backward(dy))",
                 "zh": "`{entry}` 的输出正确，但 {grad_of} 的 {numel} 个值里有 {wrong} 个与 float64 autograd 不同"
                       "（backward(dy) 之后）"},
        "fix": {"en": "The gradient of the mean loss is dy * (exp(x - lse) - one_hot(target)) / n_valid per element of "
                      "a row that counts (lse from the same row's online max and sum), 0 on an ignored row.",
                "zh": "均值 loss 的梯度，对计入的行的每个元素是 dy * (exp(x - lse) - one_hot(target)) / n_valid"
                      "（lse 来自同一行的在线最大值和求和），被忽略的行为 0。"}},
    "memory": {
        "what": {"en": "the values are right, but `{tensor}` ({shape} {dtype}, {size}) is allocated besides the "
                       "gradient: {numel} elements where the drill allows at most {limit} in one buffer",
                 "zh": "数值正确，但除了梯度之外还分配了 `{tensor}`（{shape} {dtype}，{size}）：{numel} 个元素，"
                       "而本题一个缓冲区最多允许 {limit} 个"}},
    "memory-peak": {
        "what": {"en": "the values are right, but the call's peak memory grew by {size} where the gradient and one "
                       "buffer of {limit} elements allow {allowed}",
                 "zh": "数值正确，但这次调用的峰值显存增加了 {size}，而梯度加一个 {limit} 元素的缓冲区只允许 {allowed}"}},
    "memory-fix": {
        "fix": {"en": "Keep nothing of size T x V besides the gradient: stream each row's V in blocks (an online max "
                      "and sum give lse), save one float32 lse per row (or write the gradient over the logits in the "
                      "forward, as Liger-Kernel does), and recompute softmax = exp(x - lse) where it is needed. At "
                      "T = 8192, V = 128256 a float32 copy is 4.2 GB.",
                "zh": "除了梯度之外不要保留任何 T x V 大小的东西：按块流式遍历每行的 V（在线最大值和求和得到 lse），"
                      "每行只保存一个 float32 的 lse（或者像 Liger-Kernel 那样在 forward 里把梯度写回 logits），"
                      "需要时再重算 softmax = exp(x - lse)。T = 8192、V = 128256 时一份 float32 副本就是 4.2 GB。"}},
}

M = {
    "grad_in": {"en": "  the element above is in {grad_of} (y itself was right; dy was drawn by the grader)",
                "zh": "  上面这个元素在 {grad_of} 里（y 本身正确；dy 由评测器生成）"},
    "grads_checked": {"en": "graded on y and on {tensors} after y.backward(dy), against float64 autograd",
                      "zh": "检查了 y，以及 y.backward(dy) 之后的 {tensors}，对照 float64 autograd"},
}

CHECK_NAMES_ZH = {"backward through autograd, partial sums without a race": "经 autograd 反向，部分和没有竞争",
                  "no buffer beyond the gradient over the drill's memory limit": "除梯度外没有超出本题显存限制的缓冲区"}
