"""The training drills: a forward and its backward, graded on y and on the gradients after y.backward(dy)
(grader/families/training.py). No torch import at module level (keeps `drill list` fast)."""
from __future__ import annotations

from grader.core.data import normal
from grader.core.spec import CompileOptions, DrillSpec, GradCheck, GradMistake, Mistake, Probe

# N not a multiple of any block; one row; one column (variance 0).
LN_SIZES = ((1, 1), (1, 17), (7, 781), (37, 1000), (4, 3000))
LN_EPS = 1e-5


LN_CUDA_FP16 = (4096, 8192)  # issue 21: on CUDA also (4096, 8192) in float16
# `drill bench`'s sweep (GB/s against size), all float16 like the gate's size; none is a CPU grading size
LN_BENCH_SIZES = ((1024, 1024), (4096, 1024), (4096, 4096), LN_CUDA_FP16, (16384, 8192))
LN_FP16_SIZES = frozenset(LN_BENCH_SIZES)


def _ln_inputs(dtype: str, shift: float = 0.3, scale: float = 2.0):
    """x ~ N(shift, scale), weight ~ N(1, 0.5), bias ~ N(0, 0.5): a weight of 1 and a bias of 0 would hide the
    weight/bias gradients' mistakes. The CUDA-only sizes (the gate's LN_CUDA_FP16, bench's sweep) are drawn in
    float16."""
    def make(size, gen):
        n = size[1]
        kind = "float16" if tuple(size) in LN_FP16_SIZES else dtype
        return (normal(size, gen, kind, scale=scale, shift=shift), normal((n,), gen, kind, scale=0.5, shift=1.0),
                normal((n,), gen, kind, scale=0.5))
    return make


def _stats(x):
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return mean, var


def _layernorm_ref(x, weight, bias, eps=LN_EPS):
    import torch.nn.functional as F
    return F.layer_norm(x, (x.shape[-1],), weight, bias, eps)


def _layernorm_terms(x, weight, bias, eps=LN_EPS):
    """The magnitude of what y adds up: x * rstd and mean * rstd are subtracted (a float32 mean of values near 1000
    is off by ~1e-4, which is 1e-7 of the terms), times |w|, plus |b|."""
    mean, var = _stats(x)
    rstd = (var + eps).rsqrt()
    return ((x - mean).abs() + mean.abs()) * rstd * weight.abs() + bias.abs()


def _layernorm_bytes(size):
    """The fewest bytes a forward + backward moves (the speed gate's floor): x read by the forward and again by the
    backward, y written, dy read, dx written (5 M N elements), w and b read, dW and dB written (4 N), mean and rstd
    written and read (4 M float32). In x's dtype: float16 at the CUDA-only sizes (LN_FP16_SIZES)."""
    m, n = size
    el = 2 if tuple(size) in LN_FP16_SIZES else 4
    return {"fused": 5 * m * n * el + 4 * n * el + 4 * m * 4}


def _layernorm_eager(x, weight, bias, eps=LN_EPS):
    import torch.nn.functional as F
    return F.layer_norm(x, (x.shape[-1],), weight, bias, eps)


def _layernorm_train_step(x, weight, bias, eps=LN_EPS):
    """`drill inductor layernorm`: forward and backward in one compiled graph (torch.func.vjp, with the loss
    0.5 * sum(y^2), so dy = y): Inductor's backward kernels, the dx row reduction and the dW/dB reduction across
    rows, are shown beside the forward's. Returns (y, dx, dW, dB)."""
    import torch.nn.functional as F
    from torch.func import vjp

    y, pull = vjp(lambda x, w, b: F.layer_norm(x, (x.shape[-1],), w, b, eps), x, weight, bias)
    return (y,) + tuple(pull(y))


def _block_of(meta):
    from grader.core.meta import block_of
    return block_of(meta or {})


def _y(x, mean, var, weight, bias, eps, eps_inside=True):
    rstd = (var + eps).rsqrt() if eps_inside else 1 / (var.sqrt() + eps)
    return (x - mean) * rstd * weight + bias


def _mean_over_block(x, weight, bias, meta=None, eps=LN_EPS):
    """Sum over the row divided by the block size, not by N (masked lanes add 0, the divisor is wrong)."""
    block = _block_of(meta)
    n = x.shape[-1]
    if not block or block == n:
        return None
    mean = x.sum(dim=-1, keepdim=True) / block
    var = (((x - mean) ** 2).sum(dim=-1, keepdim=True)) / block
    return _y(x, mean, var, weight, bias, eps)


def _mean_over_block_var_n(x, weight, bias, meta=None, eps=LN_EPS):
    """The mean divided by the block size, the variance (around that mean) by N."""
    block = _block_of(meta)
    n = x.shape[-1]
    if not block or block == n:
        return None
    mean = x.sum(dim=-1, keepdim=True) / block
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return _y(x, mean, var, weight, bias, eps)


def _unbiased(x, weight, bias, meta=None, eps=LN_EPS):
    n = x.shape[-1]
    if n < 2:
        return None
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).sum(dim=-1, keepdim=True) / (n - 1)
    return _y(x, mean, var, weight, bias, eps)


def _eps_outside(x, weight, bias, meta=None, eps=LN_EPS):
    mean, var = _stats(x)
    return _y(x, mean, var, weight, bias, eps, eps_inside=False)


def _no_eps(x, weight, bias, meta=None, eps=LN_EPS):
    mean, var = _stats(x)
    return _y(x, mean, var, weight, bias, 0.0)


LAYERNORM_MISTAKES = (
    Mistake("mean and variance divided by the block size, not by N", "reduction", _mean_over_block,
            name_zh="均值和方差除以的是块大小，而不是 N"),
    Mistake("the mean divided by the block size, not by N", "reduction", _mean_over_block_var_n,
            name_zh="均值除以的是块大小，而不是 N"),
    Mistake("the variance divided by N - 1 (torch.var's unbiased default); LayerNorm divides by N", "variance",
            _unbiased, name_zh="方差除以的是 N - 1（torch.var 默认的无偏估计）；LayerNorm 除以 N"),
    Mistake("eps added after the square root: 1 / (sqrt(var) + eps); LayerNorm uses 1 / sqrt(var + eps)",
            "variance", _eps_outside, name_zh="eps 加在了开方之后：1 / (sqrt(var) + eps)；LayerNorm 用的是 1 / sqrt(var + eps)"),
    Mistake("no eps in 1 / sqrt(var + eps)", "variance", _no_eps, name_zh="1 / sqrt(var + eps) 里没有 eps"),
)


# -- the backward's known mistakes: (x, weight, bias, dy=..., launches=...) -> the wrong gradient ------------------
def _xhat(x, eps):
    mean, var = _stats(x)
    rstd = (var + eps).rsqrt()
    return (x - mean) * rstd, rstd


def _dx_no_mean_term(x, weight, bias, dy=None, launches=(), eps=LN_EPS):
    xhat, rstd = _xhat(x, eps)
    wdy = weight * dy
    return rstd * (wdy - xhat * (xhat * wdy).mean(dim=-1, keepdim=True))


def _dx_no_xhat_term(x, weight, bias, dy=None, launches=(), eps=LN_EPS):
    xhat, rstd = _xhat(x, eps)
    wdy = weight * dy
    return rstd * (wdy - wdy.mean(dim=-1, keepdim=True))


def _dx_constant_stats(x, weight, bias, dy=None, launches=(), eps=LN_EPS):
    _, rstd = _xhat(x, eps)
    return rstd * weight * dy


def _dx_no_weight(x, weight, bias, dy=None, launches=(), eps=LN_EPS):
    xhat, rstd = _xhat(x, eps)
    return rstd * (dy - (xhat * (xhat * dy).mean(dim=-1, keepdim=True) + dy.mean(dim=-1, keepdim=True)))


def _row_groups(m: int, launches) -> list:
    """Ways a backward splits M rows among programs, from its launches: row r -> r % G (tutorial 05's partial rows)
    and rows [k R, (k + 1) R) (a row block per program), for every G and R a launch names (its constexprs and
    its program counts)."""
    import torch
    values = set()
    for l in launches or ():
        for v in list((l.get("meta") or {}).values()) + [l.get("programs")]:
            if isinstance(v, int) and not isinstance(v, bool) and 1 <= v < m:
                values.add(v)
        programs = l.get("programs")
        if isinstance(programs, int) and 1 < programs < m:  # contiguous groups of ceil(M / programs) rows
            values.add(-(-m // programs))
    rows = torch.arange(m)
    groups = []
    for v in sorted(values):
        groups += [rows % v == g for g in range(v)]
        groups += [rows // v == k for k in range(-(-m // v))]
    groups += [rows == r for r in range(m)]  # one row: a partial sum that never met the others
    return groups


def _dw_terms(x, dy, eps):
    xhat, _ = _xhat(x, eps)
    return dy * xhat


def _db_terms(x, dy, eps):
    return dy


def _one_programs_rows(terms_of):
    """dW (or dB) summed over one program's rows only (the partial sums never added up, or each program's store
    overwriting the last): the column sums of one group of rows, for every way the launches split them."""
    def wrong(x, weight, bias, dy=None, launches=(), eps=LN_EPS, **_):
        m = x.shape[0]
        if m < 2:
            return None
        terms = terms_of(x, dy, eps)
        return [terms[g].sum(dim=0) for g in _row_groups(m, launches) if bool(g.any()) and not bool(g.all())]
    return wrong


def _last_writer(terms_of):
    """Each row stores its dy * xhat into partial row r % G instead of adding to it: the interpreter runs programs
    in order, so only the last row into each partial row counts (rows r with r + G >= M)."""
    def wrong(x, weight, bias, dy=None, launches=(), eps=LN_EPS, **_):
        import torch
        m = x.shape[0]
        terms = terms_of(x, dy, eps)
        rows = torch.arange(m)
        out = []
        for v in sorted({v for l in launches or () for v in (l.get("meta") or {}).values()
                         if isinstance(v, int) and not isinstance(v, bool) and 1 <= v < m}):
            out.append(terms[rows + v >= m].sum(dim=0))
        return out or None
    return wrong


def _dw_from_x(x, weight, bias, dy=None, launches=(), eps=LN_EPS):
    return (dy * x).sum(dim=0)


def _dw_with_weight(x, weight, bias, dy=None, launches=(), eps=LN_EPS):
    xhat, _ = _xhat(x, eps)
    return (dy * xhat * weight).sum(dim=0)


LAYERNORM_GRAD_MISTAKES = (
    GradMistake("dx without the mean(dy * w) term: the mean's own gradient is forgotten", "dx", "x.grad",
                _dx_no_mean_term, name_zh="dx 少了 mean(dy * w) 这一项：忘了均值本身的梯度"),
    GradMistake("dx without the xhat * mean(xhat * dy * w) term: rstd's gradient is forgotten", "dx", "x.grad",
                _dx_no_xhat_term, name_zh="dx 少了 xhat * mean(xhat * dy * w) 这一项：忘了 rstd 的梯度"),
    GradMistake("dx = rstd * w * dy: mean and rstd treated as constants", "dx", "x.grad", _dx_constant_stats,
                name_zh="dx = rstd * w * dy：把均值和 rstd 当成了常数"),
    GradMistake("dx without the weight: dy is used where dy * w belongs", "dx", "x.grad", _dx_no_weight,
                name_zh="dx 没有乘 weight：该用 dy * w 的地方用了 dy"),
    GradMistake("weight.grad = sum(dy * x): x is not normalised (dW sums dy * xhat)", "dwdb", "weight.grad",
                _dw_from_x, name_zh="weight.grad = sum(dy * x)：x 没有归一化（dW 应累加 dy * xhat）"),
    GradMistake("weight.grad = sum(dy * xhat * w): the weight does not belong in its own gradient", "dwdb",
                "weight.grad", _dw_with_weight, name_zh="weight.grad = sum(dy * xhat * w)：weight 不应出现在它自己的梯度里"),
    GradMistake("weight.grad summed over one program's rows only: the partial sums were never all added up", "dwdb",
                "weight.grad", _one_programs_rows(_dw_terms), name_zh="weight.grad 只累加了一个 program 负责的行：各部分和从没有全部加起来"),
    GradMistake("weight.grad: each row's dy * xhat overwrote its partial row instead of adding to it", "dwdb",
                "weight.grad", _last_writer(_dw_terms), name_zh="weight.grad：每一行的 dy * xhat 覆盖了它的部分和行，而不是加上去"),
    GradMistake("bias.grad: each row's dy overwrote its partial row instead of adding to it", "dwdb",
                "bias.grad", _last_writer(_db_terms), name_zh="bias.grad：每一行的 dy 覆盖了它的部分和行，而不是加上去"),
    GradMistake("bias.grad summed over one program's rows only: the partial sums were never all added up", "dwdb",
                "bias.grad", _one_programs_rows(_db_terms), name_zh="bias.grad 只累加了一个 program 负责的行：各部分和从没有全部加起来"),
)


def _layernorm_grad_scale(name, inputs, dy):
    """What each gradient adds up: dx's three terms (times rstd), and for dW/dB the sum over rows of |terms|."""
    x, weight, bias = inputs[:3]
    mean, var = _stats(x)
    rstd = (var + LN_EPS).rsqrt()
    xc = ((x - mean).abs() + mean.abs()) * rstd
    wdy = (weight * dy).abs()
    if name == "x.grad":
        return rstd * (wdy + xc * (xc * wdy).mean(dim=-1, keepdim=True) + wdy.mean(dim=-1, keepdim=True))
    if name == "weight.grad":
        return (dy.abs() * xc).sum(dim=0)
    return dy.abs().sum(dim=0)


LAYERNORM = DrillSpec(
    name="layernorm",
    entry="layernorm",
    signature="layernorm(x, weight, bias, eps=1e-5) -> y  # x (M, N) float16/float32, weight/bias (N,); "
              "differentiable: a torch.autograd.Function whose forward and backward launch Triton kernels",
    holes=("stats", "save", "dx", "dwdb"),
    make_inputs=_ln_inputs("float32"),
    reference=_layernorm_ref,
    sizes=LN_SIZES,
    cuda_sizes=(LN_CUDA_FP16,),
    seeds=1,  # each size is called twice (fresh inputs; the second call also checks for a reused output)
    tolerance={"float32": (1e-5, 1e-6), "float16": (1e-3, 1e-3)},  # atol x _layernorm_terms
    error_scale=_layernorm_terms,
    family="training",
    value_category="wrong-values",
    probes=(Probe("float16", _ln_inputs("float16"), ((13, 781),)),
            Probe("large mean, small variance", _ln_inputs("float32", shift=1000.0, scale=1.0), ((3, 3000),),
                  "cancellation", name_zh="均值大、方差小"),
            # More rows than Triton tutorial 05's partial rows of dW/dB (GROUP_SIZE_M = 128 for 1024 < N <= 4096),
            # and than the reference's backward programs: rows meet in one partial row or one program, so a lock (or
            # its race, or a store that overwrites instead of adding) is exercised. N = 1100 rather than 260 rows at
            # N = 17 (tutorial 05's 256 partial rows there): half the programs, the interpreter's cost, for the same
            # meeting rows. The costliest call: last.
            Probe("130 rows", _ln_inputs("float32"), ((130, 1100),), name_zh="130 行")),
    mistakes=LAYERNORM_MISTAKES,
    input_categories={},
    eager=_layernorm_eager,
    # The speed gate times forward + backward (y.backward(dy)) as CUDA-graph replays, eager F.layer_norm beside it
    # (grader.speed.timing.graphed_or_plain). H200, (4096, 8192) fp16: see docs/training.md for the calibration
    # (speed batch 2, 2026-12-01: 15 runs fit, the reference 15/15 pass at 1.985..2.055 x, the known-slow 0/15 at
    # 1.132..1.168 x).
    speedup_min=1.5,
    bench_size=LN_CUDA_FP16,
    bench_sizes=LN_BENCH_SIZES,
    small_size=(64, 1024),
    byte_model=_layernorm_bytes,
    compile_options=CompileOptions(function=_layernorm_train_step),
    grads=GradCheck(wrt=("x", "weight", "bias"), error_scale=_layernorm_grad_scale,
                    mistakes=LAYERNORM_GRAD_MISTAKES,
                    value_categories={"x.grad": "dx", "weight.grad": "dwdb", "bias.grad": "dwdb"}),
    mock_minutes=35,
    timeout_s=120.0,  # the interpreter's budget is a share of it: a loaded 2-core machine still runs every call
)

TRAINING_SPECS = [LAYERNORM]
