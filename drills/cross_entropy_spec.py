"""The `cross-entropy` training drill (issue 21): a fused softmax + cross-entropy, graded on the mean loss, on
logits.grad after loss.backward(dy), and on memory (no (T, V) buffer beyond the gradient). Family: training
(grader/families/training.py). No torch import at module level (keeps `drill list` fast)."""
from __future__ import annotations

from grader.core.data import normal
from grader.core.spec import CompileOptions, DrillSpec, Mistake, Probe
from grader.core.spec import GradCheck, GradMistake

IGNORE = -100
# V not a multiple of any block; one row; rows ignored in every batch of 3 rows or more.
CE_SIZES = ((1, 1000), (7, 3001), (16, 1000), (3, 32011))
CE_CUDA = (257, 128256)  # issue 21: V = 128256 (Llama 3's vocabulary) on CUDA, in bfloat16
IGNORED_SHARE = 0.3


def _ce_inputs(dtype: str = "float32", scale: float = 2.0, ignored: float = IGNORED_SHARE, ignore_index=IGNORE):
    """logits ~ N(0, scale), targets uniform over V, about `ignored` of the rows (never the first) set to
    ignore_index; `ignored=1` ignores every row. Drawn on a GPU (the CUDA-only size CE_CUDA, `drill bench`'s sweep)
    the logits are bfloat16, as a training step's are."""
    def make(size, gen):
        import torch
        t, v = size
        kind = "bfloat16" if gen.device.type == "cuda" else dtype
        logits = normal((t, v), gen, kind, scale=scale)
        target = torch.randint(0, v, (t,), generator=gen, device=gen.device, dtype=torch.int64)
        drop = torch.rand(t, generator=gen, device=gen.device) < ignored
        if ignored < 1:
            drop[0] = False  # the first row always counts: a one-row batch is never all-ignored by chance
        target[drop] = ignore_index
        return logits, target
    return make


def _ce_ref(logits, target, ignore_index=IGNORE):
    import torch.nn.functional as F
    return F.cross_entropy(logits, target.long(), ignore_index=ignore_index)


def _ce_eager(logits, target, ignore_index=IGNORE):
    import torch.nn.functional as F
    return F.cross_entropy(logits, target, ignore_index=ignore_index)


def _lse(x):
    return x.logsumexp(dim=-1)


def _valid(target, ignore_index):
    return target.long() != ignore_index


def _safe_target(target, valid):
    """The target as int64 (the grader hands references float64 copies of every input), 0 on ignored rows."""
    return target.long().where(valid, 0)


def _ce_terms(logits, target, ignore_index=IGNORE):
    """What the mean adds up: |lse| and |x[target]| over the valid rows, divided by n_valid (1 when none)."""
    import torch
    valid = target >= 0  # every ignore_index the drill grades with is negative (error_scale gets no kwargs)
    n = max(int(valid.sum()), 1)
    xy = logits.gather(1, _safe_target(target, valid)[:, None])[:, 0]
    terms = (_lse(logits).abs() + xy.abs()) * valid
    return torch.as_tensor(float(terms.sum()) / n + 1.0, dtype=torch.float64)


def _mean_of(rows, valid, divisor=None):
    import torch
    n = valid.sum() if divisor is None else torch.tensor(divisor, dtype=torch.float64)
    return rows.where(valid, 0).sum() / n  # not rows * valid: an inf row times an ignored 0 is NaN


# -- the forward's known mistakes: (logits, target, meta=..., ignore_index=...) -> the wrong loss -----------------
def _no_max(logits, target, meta=None, ignore_index=IGNORE):
    """log(sum(exp(x))) in float32 with no max subtracted: exp overflows above ~88.7, the loss is inf."""
    valid = _valid(target, ignore_index)
    x = logits.float()
    lse = x.exp().sum(dim=-1).log().double()
    xy = logits.gather(1, _safe_target(target, valid)[:, None])[:, 0]
    return _mean_of(lse - xy, valid)


def _target_from_row0(logits, target, meta=None, ignore_index=IGNORE):
    """Every row's target logit read from row 0 (X + target: the row's offset not added)."""
    if logits.shape[0] < 2:
        return None
    valid = _valid(target, ignore_index)
    xy = logits[0, _safe_target(target, valid)]
    return _mean_of(_lse(logits) - xy, valid)


def _target_from_row0_in_place(logits, target, meta=None, ignore_index=IGNORE):
    """Row 0's offset missing, with the gradient written over the logits: row 0 (the interpreter runs it first)
    reads its own logit, every later row reads row 0's gradient, (softmax - one_hot) / n_valid, or 0 if ignored."""
    import torch
    if logits.shape[0] < 2:
        return None
    valid = _valid(target, ignore_index)
    n = max(int(valid.sum()), 1)
    g0 = torch.softmax(logits[0], dim=-1)
    g0[_safe_target(target, valid)[0]] -= 1.0
    g0 = g0 / n * valid[0]
    t = _safe_target(target, valid)
    xy = g0[t]
    xy[0] = logits[0, t[0]]
    return _mean_of(_lse(logits) - xy, valid)


def _target_flat(logits, target, meta=None, ignore_index=IGNORE):
    """The target logit read at flat element `target` of the (T, V) logits: row 0 again, or row target // V."""
    if logits.shape[0] < 2:
        return None
    valid = _valid(target, ignore_index)
    xy = logits.reshape(-1)[_safe_target(target, valid)]
    return _mean_of(_lse(logits) - xy, valid)


def _target_of_next_row(logits, target, meta=None, ignore_index=IGNORE):
    """Row r's loss with row r + 1's target (the target pointer advanced before it was read)."""
    t = logits.shape[0]
    if t < 2:
        return None
    valid = _valid(target, ignore_index)
    nxt = target.long().roll(-1)
    ok = valid & (nxt != ignore_index)
    xy = logits.gather(1, _safe_target(nxt, ok)[:, None])[:, 0]
    return _mean_of(_lse(logits) - xy, valid)


def _target_of_row0(logits, target, meta=None, ignore_index=IGNORE):
    """Every row takes row 0's target (the target pointer without the row's offset): row r's loss is
    lse_r - x[r, target[0]], or 0 when target[0] is ignore_index; the mean still divides by the true n_valid."""
    import torch
    t = logits.shape[0]
    if t < 2:
        return None
    t0 = target.long()[:1].expand(t)
    rows_valid = t0 != ignore_index
    xy = logits.gather(1, _safe_target(t0, rows_valid)[:, None])[:, 0]
    total = (_lse(logits) - xy).where(rows_valid, 0).sum()
    return total / torch.tensor(float(_valid(target, ignore_index).sum()), dtype=torch.float64)


def _mean_over_all_rows(logits, target, meta=None, ignore_index=IGNORE):
    """The valid rows' losses summed and divided by T: the ignored rows counted in the mean."""
    valid = _valid(target, ignore_index)
    if bool(valid.all()):
        return None
    xy = logits.gather(1, _safe_target(target, valid)[:, None])[:, 0]
    return _mean_of(_lse(logits) - xy, valid, divisor=float(logits.shape[0]))


def _ignored_rows_lse(logits, target, meta=None, ignore_index=IGNORE):
    """The ignored rows' lse added into the mean (their target logit skipped), divided by T."""
    valid = _valid(target, ignore_index)
    if bool(valid.all()):
        return None
    xy = logits.gather(1, _safe_target(target, valid)[:, None])[:, 0] * valid
    return (_lse(logits) - xy).mean()


def _all_ignored_zero(logits, target, meta=None, ignore_index=IGNORE):
    """An all-ignored batch answered with 0 (F.cross_entropy's mean is 0 / 0 = NaN there)."""
    import torch
    if bool(_valid(target, ignore_index).any()):
        return None
    return torch.zeros((), dtype=torch.float64)


def _fix(en: str, zh: str) -> dict:
    return {"en": en, "zh": zh}


FIX_MAX = _fix("Keep a running max m and a running sum d of exp(x - m) over the vocab blocks: for each block, "
               "m_new = max(m, max(x)), d = d * exp(m - m_new) + sum(exp(x - m_new)); then lse = m + log(d). "
               "exp(x - m) never exceeds 1.",
               "在词表的各个块上维护运行最大值 m 和 exp(x - m) 的运行和 d：每个块 m_new = max(m, max(x))，"
               "d = d * exp(m - m_new) + sum(exp(x - m_new))；最后 lse = m + log(d)。exp(x - m) 永远不超过 1。")
FIX_GATHER = _fix("The target logit of row r is logits[r, target[r]]: load target at Target + r, then the logit at "
                  "X + r * stride + target (the row's offset first, the column second), as int64.",
                  "第 r 行的目标 logit 是 logits[r, target[r]]：先从 Target + r 读 target，再读 "
                  "X + r * stride + target（先加行偏移，再加列），用 int64 计算。")
FIX_MEAN = _fix("F.cross_entropy's mean divides by n_valid, the number of rows whose target is not ignore_index "
                "(count them in a kernel: tl.sum(target != ignore_index)); ignored rows add 0 to the sum. An "
                "all-ignored batch is 0 / 0 = NaN, exactly as F.cross_entropy gives.",
                "F.cross_entropy 的均值除以 n_valid，即 target 不等于 ignore_index 的行数（在 kernel 里数："
                "tl.sum(target != ignore_index)）；被忽略的行对总和贡献 0。全部被忽略的批次是 0 / 0 = NaN，"
                "与 F.cross_entropy 完全一致。")

CE_MISTAKES = (
    Mistake("the row max is not subtracted: exp(x) overflows float32 above ~88.7 and the loss is inf", "stability",
            _no_max, fix=FIX_MAX, name_zh="没有减去行最大值：x 超过约 88.7 时 exp(x) 在 float32 下溢出，loss 变成 inf",
            refuted_by=("large logits",)),
    Mistake("every row's target logit read from row 0 (the row's offset not added before the target column)",
            "gather", _target_from_row0, fix=FIX_GATHER,
            name_zh="每一行的目标 logit 都从第 0 行读取（读目标列之前没有加上行偏移）"),
    Mistake("every row's target logit read from row 0 (the row's offset not added before the target column), "
            "which already holds row 0's gradient", "gather", _target_from_row0_in_place, fix=FIX_GATHER,
            name_zh="每一行的目标 logit 都从第 0 行读取（读目标列之前没有加上行偏移），而第 0 行已经被写成了它的梯度"),
    Mistake("the target logit read at flat element target of the (T, V) logits, not at row r's column target",
            "gather", _target_flat, fix=FIX_GATHER,
            name_zh="目标 logit 读成了 (T, V) logits 的第 target 个扁平元素，而不是第 r 行第 target 列"),
    Mistake("row r's loss uses row r + 1's target", "gather", _target_of_next_row, fix=FIX_GATHER,
            name_zh="第 r 行的 loss 用了第 r + 1 行的 target"),
    Mistake("every row uses row 0's target (the target pointer without the row's offset)", "gather",
            _target_of_row0, fix=FIX_GATHER, name_zh="每一行都用了第 0 行的 target（读 target 时没有加上行偏移）"),
    Mistake("the mean divided by T: the ignored rows are counted in the mean (divide by n_valid)", "ignore-index",
            _mean_over_all_rows, fix=FIX_MEAN, name_zh="均值除以了 T：被忽略的行也计入了均值（应除以 n_valid）"),
    Mistake("the ignored rows' log-sum-exp is added into the loss and the mean divided by T", "ignore-index",
            _ignored_rows_lse, fix=FIX_MEAN, name_zh="被忽略行的 log-sum-exp 也加进了 loss，且均值除以 T"),
    Mistake("an all-ignored batch returns 0; F.cross_entropy returns NaN (0 / 0)", "ignore-index", _all_ignored_zero,
            fix=FIX_MEAN, name_zh="全部被忽略的批次返回了 0；F.cross_entropy 返回 NaN（0 / 0）"),
)


# -- the backward's known mistakes: (logits, target, dy=..., launches=..., ignore_index=...) -> the wrong grad ---
def _softmax_minus_onehot(logits, target, ignore_index):
    import torch
    valid = _valid(target, ignore_index)
    g = torch.softmax(logits, dim=-1)
    g[torch.arange(logits.shape[0], device=logits.device), _safe_target(target, valid)] -= 1.0
    return g, valid


def _grad(logits, target, dy, ignore_index, divisor=None, dy_used=True, zero_ignored=True, onehot=True):
    import torch
    if onehot:
        g, valid = _softmax_minus_onehot(logits, target, ignore_index)
    else:
        valid = _valid(target, ignore_index)
        g = torch.softmax(logits, dim=-1)
    n = float(valid.sum()) if divisor is None else divisor
    if zero_ignored:
        g = g * valid[:, None]
    elif onehot:  # an ignored row's "one-hot" was subtracted at column 0 above: put it back
        g[~valid, 0] += 1.0
    return g * (dy if dy_used else 1.0) / max(n, 1e-300)


def _grad_not_scaled(logits, target, dy=None, launches=(), ignore_index=IGNORE):
    if int(_valid(target, ignore_index).sum()) < 2:
        return None
    return _grad(logits, target, dy, ignore_index, divisor=1.0)


def _grad_over_t(logits, target, dy=None, launches=(), ignore_index=IGNORE):
    if bool(_valid(target, ignore_index).all()):
        return None
    return _grad(logits, target, dy, ignore_index, divisor=float(logits.shape[0]))


def _grad_no_dy(logits, target, dy=None, launches=(), ignore_index=IGNORE):
    return _grad(logits, target, dy, ignore_index, dy_used=False)


def _grad_ignored_not_zeroed(logits, target, dy=None, launches=(), ignore_index=IGNORE):
    if bool(_valid(target, ignore_index).all()):
        return None
    return _grad(logits, target, dy, ignore_index, zero_ignored=False)


def _grad_ignored_rows_untouched(logits, target, dy=None, launches=(), ignore_index=IGNORE):
    """An in-place kernel (Liger's layout) that returns on an ignored row without writing it: that row of the
    "gradient" is still the row's logits, times dy if backward scales by it."""
    import torch
    valid = _valid(target, ignore_index)
    if bool(valid.all()):
        return None
    return torch.where(valid[:, None], _grad(logits, target, dy, ignore_index), logits * dy)


def _grad_no_onehot(logits, target, dy=None, launches=(), ignore_index=IGNORE):
    return _grad(logits, target, dy, ignore_index, onehot=False)


FIX_SCALE = _fix("logits.grad = dy * (softmax(x) - one_hot(target)) / n_valid on every row that counts, 0 on an "
                 "ignored row: the mean's 1 / n_valid and the loss's grad_output dy both scale it (dy is 1 after a "
                 "plain loss.backward(), but not in general).",
                 "logits.grad = dy * (softmax(x) - one_hot(target)) / n_valid（计入的每一行），被忽略的行为 0："
                 "均值的 1 / n_valid 和 loss 的 grad_output dy 都要乘上（普通的 loss.backward() 里 dy 是 1，一般情况下不是）。")

CE_GRAD_MISTAKES = (
    GradMistake("logits.grad not scaled by 1 / n_valid: the mean's gradient is dy * (softmax - one_hot) / n_valid",
                "grad-scale", "logits.grad", _grad_not_scaled,
                name_zh="logits.grad 没有乘 1 / n_valid：均值的梯度是 dy * (softmax - one_hot) / n_valid"),
    GradMistake("logits.grad scaled by 1 / T: the ignored rows are counted in the gradient's mean", "ignore-index",
                "logits.grad", _grad_over_t, name_zh="logits.grad 乘的是 1 / T：被忽略的行也算进了梯度的均值"),
    GradMistake("logits.grad not multiplied by the loss's grad_output dy", "grad-scale", "logits.grad", _grad_no_dy,
                name_zh="logits.grad 没有乘 loss 的 grad_output dy"),
    GradMistake("the ignored rows' gradient is not zero (softmax / n_valid written there)", "ignore-index",
                "logits.grad", _grad_ignored_not_zeroed, name_zh="被忽略的行的梯度不是 0（那里写入了 softmax / n_valid）"),
    GradMistake("the ignored rows were never written: the in-place gradient kept their logits (times dy), not 0",
                "ignore-index", "logits.grad", _grad_ignored_rows_untouched,
                name_zh="被忽略的行根本没有写：原地写的梯度在那里还是它们的 logits（乘了 dy），而不是 0"),
    GradMistake("logits.grad = softmax / n_valid: the one-hot of the target is not subtracted", "gradient",
                "logits.grad", _grad_no_onehot, name_zh="logits.grad = softmax / n_valid：没有减去 target 的 one-hot"),
)


def _ce_grad_scale(name, inputs, dy):
    """What the gradient adds up, per element: |dy| / n_valid * (p * (1 + |x| + |lse|) + 1e-6 + one_hot) on the valid
    rows (0 elsewhere). p = exp(x - lse) carries the rounding of x - lse: float32 keeps ~6e-8 of |x| + |lse|, which
    at logits of 100 is 1e-5 of p, as much as the whole rtol."""
    import torch
    logits, target = inputs[:2]
    valid = target >= 0  # every ignore_index the drill grades with is negative (error_scale gets no kwargs)
    n = max(int(valid.sum()), 1)
    lse = _lse(logits)[:, None]
    g = torch.softmax(logits, dim=-1) * (1 + logits.abs() + lse.abs()) + 1e-6  # + 1e-6: float32 flushes a
    # p of 1e-95 to 0, which is right
    g[torch.arange(logits.shape[0], device=logits.device), _safe_target(target, valid)] += 1.0
    return g * valid[:, None] * dy.abs() / n


def _max_alloc(inputs):
    """No buffer of half the logits' T x V elements or more beyond the gradient (a one-row batch's row is exempt: (1, V) is also
    a row buffer)."""
    logits = inputs[0]
    t, v = logits.shape
    return None if t < 2 else t * v // 2


def _ce_bytes(size):
    """The fewest bytes a forward + backward moves (`drill bench`'s GB/s): the logits read once and the gradient
    written once (over the logits or not), the targets read. float32 at the CPU sizes, else bfloat16 (drawn on a
    GPU)."""
    t, v = size
    el = 4 if tuple(size) in CE_SIZES else 2
    return {"fused": 2 * t * v * el + 8 * t}


def _ce_train_step(logits, target, ignore_index=IGNORE):
    """`drill inductor cross-entropy`: forward and backward in one compiled graph (torch.func.vjp of the mean loss
    with grad_output 1): Inductor's reduction kernels for the loss and the gradient. Returns (loss, dlogits)."""
    import torch
    import torch.nn.functional as F
    from torch.func import vjp

    loss, pull = vjp(lambda x: F.cross_entropy(x, target, ignore_index=ignore_index), logits)
    return loss, pull(torch.ones_like(loss))[0]


CROSS_ENTROPY = DrillSpec(
    name="cross-entropy",
    entry="cross_entropy",
    signature="cross_entropy(logits, target, ignore_index=-100) -> loss  # logits (T, V) float32 (bf16/fp16 on "
              "CUDA), target (T,) int64; the mean over rows whose target is not ignore_index; differentiable "
              "through a torch.autograd.Function",
    holes=("lse", "gather", "ignore", "grad"),
    make_inputs=_ce_inputs(),
    reference=_ce_ref,
    sizes=CE_SIZES,
    cuda_sizes=(CE_CUDA,),
    seeds=1,  # each size is called twice (fresh inputs; the second call also checks for a reused output)
    tolerance={"float32": (1e-5, 1e-6), "bfloat16": (1.6e-2, 1e-3), "float16": (2e-3, 1e-3)},  # atol x _ce_terms
    error_scale=_ce_terms,
    family="training",
    value_category="wrong-values",
    probes=(Probe("large logits", _ce_inputs(scale=40.0), ((4, 3001),), "stability", name_zh="logits 很大"),
            Probe("all ignored", _ce_inputs(ignored=1.0), ((5, 1000),), "ignore-index", name_zh="全部被忽略"),
            Probe("ignore_index=-1", _ce_inputs(ignore_index=-1), ((9, 1000),), "ignore-index",
                  kwargs={"ignore_index": -1})),
    mistakes=CE_MISTAKES,
    dims={"logits": ("T", "V"), "target": ("T",)},
    eager=_ce_eager,
    # The speed gate times forward + backward (y.backward(dy), dy != 1, 30 % of the rows ignored) as CUDA-graph
    # replays, eager F.cross_entropy beside it. H200, (8192, 128256) bf16, torch 2.11 / triton 3.6, 2026-12-01 (the
    # lead's runs of benchmarks/gate_calibration.py, docs/training.md): the reference 20/20 pass at 1.969..1.975 x
    # (18/18 at 1.970..1.979 x in the run before), the known-slow 128-element x 1-warp version 0/20 at 1.159..1.162 x.
    speedup_min=1.5,
    bench_size=(8192, 128256),
    small_size=(1024, 32000),
    byte_model=_ce_bytes,
    bench_sizes=((1024, 32000), (4096, 32000), (1024, 128256), (4096, 128256), CE_CUDA, (8192, 128256)),
    compile_options=CompileOptions(function=_ce_train_step),
    grads=GradCheck(wrt=("logits",), error_scale=_ce_grad_scale, mistakes=CE_GRAD_MISTAKES,
                    value_categories={"logits.grad": "gradient"}, in_place=("logits",), max_alloc=_max_alloc),
    mock_minutes=35,
    timeout_s=120.0,
)
