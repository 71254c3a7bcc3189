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
}

M = {
    "grad_in": {"en": "  the element above is in {grad_of} (y itself was right; dy was drawn by the grader)",
                "zh": "  上面这个元素在 {grad_of} 里（y 本身正确；dy 由评测器生成）"},
    "grads_checked": {"en": "graded on y and on {tensors} after y.backward(dy), against float64 autograd",
                      "zh": "检查了 y，以及 y.backward(dy) 之后的 {tensors}，对照 float64 autograd"},
}

CHECK_NAMES_ZH = {"backward through autograd, partial sums without a race": "经 autograd 反向，部分和没有竞争"}
