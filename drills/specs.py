"""One entry per drill: the data the grader needs. No torch import at module level (keeps `drill list` fast)."""
from __future__ import annotations

from grader.core.data import mixed
from grader.core.spec import DrillSpec

BLOCK = 1024
# Either side of the skeleton's BLOCK_SIZE, a prime, and the guide's n=100000 (not a multiple of 1024).
VECTOR_SIZES = (1, BLOCK - 1, BLOCK, BLOCK + 1, 12289, 100000)
LARGE = (2**24 + 17,)


def _two_vectors(size, gen):
    return mixed(size, gen), mixed(size, gen)


def _add(x, y):
    return x + y


def _vector_add_drill(name: str, holes: tuple[str, ...]) -> DrillSpec:
    return DrillSpec(
        name=name,
        entry="add",
        signature="add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor",
        holes=holes,
        make_inputs=_two_vectors,
        reference=_add,
        sizes=VECTOR_SIZES,
        cuda_sizes=LARGE,
        family="vector-add",
        solution="vector_add.py",
    )


SPECS = [
    _vector_add_drill("offsets", ("offsets",)),
    _vector_add_drill("mask", ("mask",)),
    _vector_add_drill("grid", ("grid",)),
    _vector_add_drill("vector-add", ("offsets", "mask", "grid")),
]


# -- fused drills: one kernel, proven by bytes moved (interpreter) and by speed (CUDA) -----------------------------
F32 = 4


def _add_relu(x, y):
    return (x + y).clamp_min(0)


def _add_relu_eager(x, y):
    """What eager PyTorch does: two kernels, x + y goes to HBM and comes back for the relu."""
    import torch
    return torch.relu(x + y)


def _add_only(x, y):
    return x + y


def _add_relu_bytes(n):
    # fused: read x, y, write out. eager: add (read 2, write 1) + relu (read 1, write 1).
    return {"fused": 3 * n * F32, "eager": 5 * n * F32}


def _one_vector(size, gen):
    return (mixed(size, gen),)


def _gelu_ref(x):
    import math
    import torch
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)))


def _gelu_eager(x):
    """The guide's §2.9 formula, op by op: nine pointwise kernels in eager mode."""
    import math
    import torch
    x_cubed = x * x * x
    inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x_cubed)
    return 0.5 * x * (1.0 + torch.tanh(inner))


def _gelu_aten(x):
    import torch.nn.functional as F
    return F.gelu(x, approximate="tanh")


def _gelu_bytes(n):
    # eager chain: x*x, *x, 0.044715*, x+, c*, tanh, 1+, 0.5*x, * -> 4 binary (3 n) + 5 unary (2 n) = 22 n.
    return {"fused": 2 * n * F32, "eager": 22 * n * F32}


SPECS += [
    DrillSpec(
        name="fuse",
        entry="add_relu",
        signature="add_relu(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor",
        holes=("fuse",),
        make_inputs=_two_vectors,
        reference=_add_relu,
        sizes=VECTOR_SIZES,
        cuda_sizes=LARGE,
        family="fusion",
        max_launches=1,
        eager=_add_relu_eager,
        byte_model=_add_relu_bytes,
        bytes_proof=True,
        intermediate="x + y",
        speedup_min=1.3,
        speed_refs=(("eager x + y (add only)", _add_only),),
    ),
    DrillSpec(
        name="gelu",
        entry="gelu",
        signature='gelu(x: torch.Tensor) -> torch.Tensor  # == F.gelu(x, approximate="tanh")',
        holes=("gelu",),
        make_inputs=_one_vector,
        reference=_gelu_ref,
        sizes=VECTOR_SIZES,
        cuda_sizes=LARGE,
        family="fusion",
        max_launches=1,
        eager=_gelu_eager,
        byte_model=_gelu_bytes,
        bytes_proof=True,
        intermediate={"en": "the 8 intermediates of the op chain (x·x, x³, ..., tanh(inner), 1 + tanh, 0.5·x)",
                      "zh": "这串运算的 8 个中间结果（x·x、x³、...、tanh(inner)、1 + tanh、0.5·x）"},
        speedup_min=4.0,
        speed_refs=(('F.gelu(approximate="tanh") (one aten kernel)', _gelu_aten),),
    ),
]

# -- Beyond pointwise: the Inductor chapter's kernels (2-D indexing, reductions, persistent grid, autotune) --------
# Sizes keep a CPU grade under ~5 s: the interpreter costs ~0.5 ms per program (more for wide 2-D blocks).
from grader.core.data import normal  # noqa: E402
from grader.core.meta import block_of  # noqa: E402
from grader.core.spec import Mistake, Probe  # noqa: E402


def _matrix(size, gen):
    return (mixed(size, gen),)


def _transpose_ref(x):
    return x.t().contiguous()


def _rows(size, gen):
    return (normal(size, gen),)


def _rows_all_negative(size, gen):
    """Every value far below 0: a masked lane that reads 0 is then the row's max (or a wrong summand)."""
    return (normal(size, gen, shift=-200.0),)


def _rows_x30(size, gen):
    """randn x 30: exp overflows float32 (max ~3.4e38 = e^88.7) unless the row max is subtracted first."""
    return (normal(size, gen, scale=30.0),)


def _row_sum_ref(x):
    return x.sum(dim=1)


def _row_abs_sum(x):
    return x.abs().sum(dim=1)


def _row_sum_tile_axis_swapped(x, meta=None):
    """tl.sum(tile, axis=0) on a square (B, B) tile: each program's B outputs are the sums of its rows' tile columns,
    column j of every column block, not the rows' sums. B is the kernel's one block constexpr (None when it has two
    different ones: the tile is then not square and the swapped sum has the wrong length)."""
    import torch

    blocks = {v for k, v in (meta or {}).items() if "BLOCK" in k.upper() and isinstance(v, int) and v > 1}
    if len(blocks) != 1:
        return None
    b = blocks.pop()
    m, n = x.shape
    padded = torch.nn.functional.pad(x, (0, -n % b))  # masked-off columns add 0
    out = torch.zeros(m, dtype=x.dtype)
    for r0 in range(0, m, b):
        cols = padded[r0:r0 + b].reshape(-1, padded.shape[1] // b, b).sum(dim=(0, 1))  # (B,): column j of each block
        out[r0:r0 + b] = cols[:min(b, m - r0)]
    return out


def _softmax_ref(x):
    e = (x - x.max(dim=1, keepdim=True).values).exp()
    return e / e.sum(dim=1, keepdim=True)


def _softmax_no_max(x, meta=None):
    """exp(x) / sum(exp(x)) in float32, no row max subtracted: exp overflows above ~88.7 (inf / inf = NaN) and a row
    far below 0 underflows to 0 / 0 = NaN."""
    import torch
    e = x.float().exp()
    return (e / e.sum(dim=1, keepdim=True)).double()


def _softmax_eager(x):
    """The naive op chain a learner would write in eager PyTorch (what the Triton kernel must beat)."""
    m = x.max(dim=1, keepdim=True).values
    e = (x - m).exp()
    return e / e.sum(dim=1, keepdim=True)


def _rms_inputs(dtype):
    def make(size, gen):
        return normal(size, gen, dtype=dtype), normal((size[1],), gen, dtype=dtype, scale=0.5, shift=1.0)
    return make


def _mean_sq_eps(x, eps):
    """mean(x^2) + eps over the last dim: what RMSNorm takes the root of."""
    return x.pow(2).mean(dim=-1, keepdim=True) + eps


def _rmsnorm_ref(x, weight, eps=1e-6):
    return x * _mean_sq_eps(x, eps).rsqrt() * weight


def _rms_over_block(x, weight, meta=None, eps=1e-6):
    """The sum of squares divided by the block size, not by N (masked lanes add 0; the divisor is wrong)."""
    block = block_of(meta or {})
    if not block or block == x.shape[-1]:
        return None
    return x * (x.pow(2).sum(dim=-1, keepdim=True) / block + eps).rsqrt() * weight


def _rms_one_plus_weight(x, weight, meta=None, eps=1e-6):
    """Gemma's RMSNorm scales by (1 + w); this drill's (LLaMA's, F.rms_norm's) by w."""
    return x * _mean_sq_eps(x, eps).rsqrt() * (1 + weight)


def _rms_no_weight(x, weight, meta=None, eps=1e-6):
    return x * _mean_sq_eps(x, eps).rsqrt()


def _rms_times_rms(x, weight, meta=None, eps=1e-6):
    """Multiplied by the RMS (sqrt) where 1 / RMS (rsqrt) belongs."""
    return x * _mean_sq_eps(x, eps).sqrt() * weight


RMSNORM_MISTAKES = (
    Mistake("the mean of squares divided by the block size, not by N", "reduction", _rms_over_block,
            name_zh="平方和除以的是块大小，而不是 N",
            fix={"en": "Masked lanes add 0 to tl.sum(x * x), so the sum is right; divide it by N, the row's real "
                       "length: BLOCK is a power of two >= N and equals it only when N is one.",
                 "zh": "被 mask 的 lane 对 tl.sum(x * x) 贡献 0，和是对的；要除以行的真实长度 N："
                       "BLOCK 是不小于 N 的 2 的幂，只有 N 本身是 2 的幂时才相等。"}),
    Mistake("the weight applied as (1 + w) (Gemma's RMSNorm), not w", "wrong-values", _rms_one_plus_weight,
            name_zh="weight 用成了 (1 + w)（Gemma 的 RMSNorm），而不是 w",
            fix={"en": "This drill's RMSNorm is LLaMA's and F.rms_norm's: y = x * rstd * w. Gemma stores w - 1 and "
                       "scales by (1 + w); drop the + 1 here.",
                 "zh": "这个练习的 RMSNorm 是 LLaMA / F.rms_norm 的：y = x * rstd * w。Gemma 存的是 w - 1，"
                       "所以乘 (1 + w)；这里去掉 + 1。"}),
    Mistake("the weight never applied (y = x * rstd)", "wrong-values", _rms_no_weight,
            name_zh="没有乘 weight（y = x * rstd）",
            fix={"en": "Load weight at the row's column offsets (the same mask) and multiply: y = x * rstd * w.",
                 "zh": "按本行的列偏移（同一个 mask）load weight 再相乘：y = x * rstd * w。"}),
    Mistake("multiplied by the RMS, sqrt(mean(x^2) + eps), where its inverse belongs", "wrong-values",
            _rms_times_rms, name_zh="乘的是 RMS，即 sqrt(mean(x^2) + eps)，应乘它的倒数",
            fix={"en": "rstd = 1 / tl.sqrt(mean_sq + eps) (or tl.rsqrt(mean_sq + eps)); y = x * rstd * w.",
                 "zh": "rstd = 1 / tl.sqrt(mean_sq + eps)（或 tl.rsqrt(mean_sq + eps)）；y = x * rstd * w。"}),
)


def _rmsnorm_eager(x, weight, eps=1e-6):
    """The naive op chain (pow, mean, add, rsqrt, mul, mul)."""
    return x * (x.pow(2).mean(dim=-1, keepdim=True) + eps).rsqrt() * weight


def _softmax_bytes(size):
    """fp32 bytes moved: one read + one write fused; the naive chain max/sub/exp/sum/div reads 5x, writes 3x."""
    m, n = size
    return {"fused": 2 * m * n * 4, "eager": 8 * m * n * 4}


def _torch_softmax(x):
    import torch
    return torch.softmax(x, dim=1)


def _f_rms_norm(x, weight, eps=1e-6):
    import torch.nn.functional as F
    return F.rms_norm(x, (x.shape[-1],), weight, eps)


def _rmsnorm_bytes(size):
    """fp32 bytes moved: one read + one write fused; pow/mean/mul/mul read x-sized data 4x, write 3x."""
    m, n = size
    return {"fused": 2 * m * n * 4, "eager": 7 * m * n * 4}


ROW_SIZES = ((1, 1), (37, 781), (16, 1024), (3, 3000))
ROW_CUDA = ((4096, 781), (4096, 8192))
ROW_BENCH_SIZES = tuple((4096, n) for n in (512, 781, 2048, 8192, 16384, 32768))  # `drill bench`: row length

SPECS += [
    DrillSpec(
        name="transpose",
        entry="transpose",
        signature="transpose(x: torch.Tensor) -> torch.Tensor  # (M, N) float32 -> contiguous (N, M)",
        holes=("index",),
        make_inputs=_matrix,
        reference=_transpose_ref,
        sizes=((37, 5), (1, 123), (123, 1), (347, 301)),
        cuda_sizes=((4097, 4099),),
        seeds=2,
        family="2d",
        value_category="indexing",
        dims={"x": ("M", "N"), "out": ("N", "M")},
        contiguous_output=True,  # the drill's point: x.t() is a view; the answer is a new, contiguous (N, M)
    ),
    DrillSpec(
        name="row-sum",
        entry="row_sum",
        signature="row_sum(x: torch.Tensor) -> torch.Tensor  # (M, N) -> (M,) float32",
        holes=("reduction",),
        make_inputs=_rows,
        reference=_row_sum_ref,
        sizes=((1, 1), (37, 300), (100, 1000), (203, 33)),
        cuda_sizes=((4096, 8192),),
        seeds=2,
        # A float32 sum of N terms is off by up to ~log2(N)..N/BLOCK x eps x sum|x|: tolerance scales with sum|x|.
        tolerance={"float32": (1e-5, 1e-5)},
        error_scale=_row_abs_sum,
        family="reduction",
        value_category="reduction",
        masked_other=(0.0, "other"),  # masked lanes must add nothing
        mistakes=(Mistake("summed along the tile's other axis (tl.sum(x, axis=0)): each output is a column sum of "
                          "the program's rows, not its row's sum", "reduction", _row_sum_tile_axis_swapped,
                          name_zh="沿 tile 的另一个轴求和（tl.sum(x, axis=0)）：每个输出是该 program 各行的列和，而不是本行的和",
                          fix={"en": "Reduce over the columns: of a (rows, cols) tile, tl.sum(x, axis=1) gives one "
                                     "value per row; axis=0 sums down the rows.",
                               "zh": "沿列归约：对 (rows, cols) 的 tile，tl.sum(x, axis=1) 每行得到一个值；axis=0 是沿行往下加。"}),),
        dims={"x": ("M", "N"), "out": ("M",)},
    ),
    DrillSpec(
        name="softmax",
        entry="softmax",
        signature="softmax(x: torch.Tensor) -> torch.Tensor  # row-wise over dim 1 of a 2-D float32 tensor",
        holes=("other", "max"),
        make_inputs=_rows,
        reference=_softmax_ref,
        sizes=ROW_SIZES,
        cuda_sizes=ROW_CUDA,
        seeds=2,
        family="reduction",
        probes=(Probe("all-negative", _rows_all_negative, ((16, 781),), "other", name_zh="全为负数"),
                Probe("x30", _rows_x30, ((16, 781),), "stability")),
        masked_other=(float("-inf"), "other"),
        mistakes=(Mistake("the row max is not subtracted before exp", "stability", _softmax_no_max,
                          refuted_by=("x30",), name_zh="exp 之前没有减去行最大值"),),
        dims={"x": ("M", "N"), "out": ("M", "N")},
        eager=_softmax_eager,
        byte_model=_softmax_bytes,
        speedup_min=2.0,  # H200: the reference is 5.4x the naive chain at 4096x8192
        bench_size=(4096, 8192),
        bench_sizes=ROW_BENCH_SIZES,
        small_size=(128, 781),
        speed_refs=(("torch.softmax", _torch_softmax),),
    ),
    DrillSpec(
        name="rmsnorm",
        entry="rmsnorm",
        signature="rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor",
        holes=("mean",),
        make_inputs=_rms_inputs("float32"),
        reference=_rmsnorm_ref,
        sizes=ROW_SIZES,
        cuda_sizes=ROW_CUDA,
        seeds=2,
        kwargs={"eps": 1e-5},
        family="reduction",
        value_category="reduction",
        masked_other=(0.0, "other"),  # masked lanes must add nothing to the sum of squares
        mistakes=RMSNORM_MISTAKES,
        dims={"x": ("M", "N"), "weight": ("N",), "out": ("M", "N")},
        probes=(Probe("bfloat16", _rms_inputs("bfloat16"), ((13, 781), (8, 1024))),),
        eager=_rmsnorm_eager,
        byte_model=_rmsnorm_bytes,
        speedup_min=2.0,  # H200: the reference is 4.5x the naive chain at 4096x8192
        bench_size=(4096, 8192),
        bench_sizes=ROW_BENCH_SIZES,
        small_size=(128, 781),
        speed_refs=(("F.rms_norm", _f_rms_norm),),
    ),
    DrillSpec(
        name="persistent",
        entry="add",
        signature="add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor  # at most program_cap(device) programs",
        holes=("loop", "grid"),
        make_inputs=_two_vectors,
        reference=_add,
        sizes=(1, BLOCK + 1, 12289, 100000),
        cuda_sizes=LARGE,
        seeds=2,
        family="persistent",
        max_programs=16,
        max_programs_per_sm=8,
    ),
    DrillSpec(
        name="autotune",
        entry="add",
        signature="add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor  # kernel under @triton.autotune",
        holes=("configs", "grid"),
        make_inputs=_two_vectors,
        reference=_add,
        sizes=(1, BLOCK + 1, 12289),
        cuda_sizes=LARGE,
        seeds=1,
        family="autotune",
        autotune_min_configs=2,
    ),
]

# -- Tensor cores: matmul, a fused epilogue, FlashAttention ---------------------------------------------------------
# Interpreter shapes stay small (tl.dot runs as numpy; ~0.3 s per call at 127x129x65): no dim a multiple of a block.
# The CUDA run adds a >= 1000^3 shape; the speed gate times the bench shape. Inputs are float16, N(0, 1).
import math  # noqa: E402

from grader.core.meta import block_along  # noqa: E402
from grader.core.spec import CompileOptions, Mistake  # noqa: E402

F16 = 2
# `drill bench matmul`: squares, an odd shape (no multiple of a tile) and a skinny K.
MATMUL_BENCH_SIZES = ((512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192),
                      (4095, 4097, 4093), (8192, 8192, 512))
MATMUL_SIZES = ((1, 1, 1), (127, 129, 65), (100, 40, 257), (128, 128, 128), (37, 300, 129))  # (M, N, K)


def _mm_inputs(size, gen):
    m, n, k = size
    return normal((m, k), gen, dtype="float16"), normal((k, n), gen, dtype="float16")


def _mm_b_transposed(size, gen):
    """b as w.t(): a (K, N) view with strides (1, K), the layout of an nn.Linear weight."""
    m, n, k = size
    return normal((m, k), gen, dtype="float16"), normal((n, k), gen, dtype="float16").t()


def _mm_a_transposed(size, gen):
    m, n, k = size
    return normal((k, m), gen, dtype="float16").t(), normal((k, n), gen, dtype="float16")


def _matmul_ref(a, b):
    return a @ b


def _matmul_terms(a, b):
    """sum |a_ik b_kj|: a float32 dot product of K terms is off by a small multiple of eps x this."""
    return a.abs() @ b.abs()


def _matmul_eager(a, b):
    """torch.matmul(a, b): cuBLAS"""
    import torch
    return torch.matmul(a, b)


def _matmul_flops(size):
    m, n, k = size
    return 2 * m * n * k


def _k_floor(a, b, meta):
    """The K loop stops at a multiple of BLOCK_K: range(K // BLOCK_K) drops the K tail."""
    bk, k = block_along(meta, "K"), a.shape[1]
    if not bk or k % bk == 0:
        return None
    kt = (k // bk) * bk
    return a[:, :kt] @ b[:kt, :]


def _k_one_step_short(a, b, meta):
    """The K loop runs one step too few: range(tl.cdiv(K, BLOCK_K) - 1)."""
    bk, k = block_along(meta, "K"), a.shape[1]
    if not bk or k % bk:
        return None  # for K not a multiple, this is _k_floor
    kt = k - bk
    return a[:, :kt] @ b[:kt, :] if kt > 0 else None


def _k_first_step_only(a, b, meta):
    bk, k = block_along(meta, "K"), a.shape[1]
    if not bk or bk >= k:
        return None
    return a[:, :bk] @ b[:bk, :]


def _k_last_step_only(a, b, meta):
    """acc = tl.dot(a, b) instead of acc += (or acc = tl.dot(a, b, acc)): each K step overwrites the last."""
    bk, k = block_along(meta, "K"), a.shape[1]
    if not bk or bk >= k:
        return None
    last = ((k - 1) // bk) * bk
    return a[:, last:] @ b[last:, :]


def _swapped_strides(t):
    """t read with its two strides swapped (t.stride(1) along rows, t.stride(0) along columns), as a kernel passed
    x.stride(1), x.stride(0) reads it: an element whose address falls outside t reads 0 (other=0.0; the
    interpreter's lane check switches such lanes off)."""
    import torch
    (r, c), (s0, s1) = t.shape, t.stride()
    storage = torch.zeros(t.numel(), dtype=t.dtype, device=t.device)
    i = torch.arange(r, device=t.device)[:, None]
    j = torch.arange(c, device=t.device)[None, :]
    storage[(i * s0 + j * s1).reshape(-1)] = t.reshape(-1)
    swapped = i * s1 + j * s0
    inside = swapped < t.numel()
    return torch.where(inside, storage[swapped.clamp(max=t.numel() - 1)], torch.zeros((), dtype=t.dtype))


def _a_strides_swapped(a, b, meta):
    return None if a.shape[0] == 1 or a.shape[1] == 1 else _swapped_strides(a) @ b


def _b_strides_swapped(a, b, meta):
    return None if b.shape[0] == 1 or b.shape[1] == 1 else a @ _swapped_strides(b)


def _k_pointer_stays(which):
    """One operand's K pointer never advances (no a_ptrs += BLOCK_K * stride_ak): every K step reads its first K
    block again, masked to that step's k_left."""
    def ref(a, b, meta):
        bk, k = block_along(meta, "K"), a.shape[1]
        if not bk or bk >= k:
            return None
        out = 0
        for start in range(0, k, bk):
            w = min(bk, k - start)
            out = out + (a[:, :w] @ b[start:start + w, :] if which == "a" else a[:, start:start + w] @ b[:w, :])
        return out
    return ref


K_LOOP_MISTAKES = (Mistake("the K loop drops the K tail (K // BLOCK_K steps)", "k-loop", _k_floor,
                           name_zh="K 循环丢掉了 K 的尾部（只走了 K // BLOCK_K 步）"),
                   Mistake("each K step overwrites the accumulator (acc = tl.dot(a, b))", "k-loop", _k_last_step_only,
                           name_zh="每个 K 步都覆盖了累加器（acc = tl.dot(a, b)）"),
                   Mistake("the K loop runs one step too few", "k-loop", _k_one_step_short, name_zh="K 循环少走了一步"),
                   Mistake("only the first K step is accumulated", "k-loop", _k_first_step_only, name_zh="只累加了第一个 K 步"),
                   Mistake("a's K pointer never advances (no a_ptrs += BLOCK_K * stride_ak in the loop)", "k-loop",
                           _k_pointer_stays("a"), name_zh="a 的 K 方向指针从不前进（循环里没有 a_ptrs += BLOCK_K * stride_ak）"),
                   Mistake("b's K pointer never advances (no b_ptrs += BLOCK_K * stride_bk in the loop)", "k-loop",
                           _k_pointer_stays("b"), name_zh="b 的 K 方向指针从不前进（循环里没有 b_ptrs += BLOCK_K * stride_bk）"),
                   Mistake("a's strides swapped (a.stride(1) where stride_am belongs, a.stride(0) for stride_ak)",
                           "strides", _a_strides_swapped,
                           name_zh="a 的 stride 传反了（stride_am 处传了 a.stride(1)，stride_ak 处传了 a.stride(0)）"),
                   Mistake("b's strides swapped (b.stride(1) where stride_bk belongs, b.stride(0) for stride_bn)",
                           "strides", _b_strides_swapped,
                           name_zh="b 的 stride 传反了（stride_bk 处传了 b.stride(1)，stride_bn 处传了 b.stride(0)）"))
MATMUL_PROBES = (Probe("b = w.t()", _mm_b_transposed, ((100, 40, 257),), "strides"),
                 Probe("a = w.t()", _mm_a_transposed, ((37, 300, 129),), "strides"))
MATMUL_TOLERANCE = {"float16": (1e-3, 1e-5)}  # atol x sum|a||b| (error_scale); rtol covers the float16 store


def _mm_bias_inputs(make):
    def inputs(size, gen):
        a, b = make(size, gen)
        return a, b, normal((size[1],), gen, dtype="float16")
    return inputs


def _bias_relu_ref(a, b, bias):
    return (a @ b + bias).clamp_min(0)


def _bias_relu_terms(a, b, bias):
    """sum |a_ik b_kj| + |bias_j| (a float32 dot product's error), plus 64 |a @ b|: the product may be rounded to
    float16 once before the bias is added, as eager's torch.matmul(a, b) + bias does (half an ulp, 2^-11 |a @ b|,
    is atol 1e-5 x 49; found by a blind tester whose eager-faithful kernel failed on 1 element in 16384)."""
    prod = a @ b
    return a.abs() @ b.abs() + bias.abs() + 64 * prod.abs()


def _bias_relu_eager(a, b, bias):
    """torch.relu(torch.matmul(a, b) + bias): cuBLAS, then two elementwise kernels"""
    import torch
    return torch.relu(torch.matmul(a, b) + bias)


def _bias_per_row(a, b, bias, meta):
    """bias indexed by the row (offs_m) instead of the column: masked to zero past its N entries."""
    import torch
    m, n = a.shape[0], b.shape[1]
    if m == n:
        return None
    rows = torch.zeros(m, dtype=bias.dtype, device=bias.device)
    rows[:min(m, n)] = bias[:min(m, n)]
    return (a @ b + rows[:, None]).clamp_min(0)


def _bias_every_k_step(a, b, bias, meta):
    """bias added inside the K loop: once per K step instead of once."""
    bk, k = block_along(meta, "K"), a.shape[1]
    steps = -(-k // bk) if bk else 0
    # two steps is the same output as "bias added twice" (checked first): named by that, the plainer fact
    return (a @ b + steps * bias).clamp_min(0) if steps > 2 else None


def _bias_across_the_tile(a, b, bias, meta):
    """bias[:, None] instead of bias[None, :]: the tile's column offsets loaded, then broadcast down its rows, so
    element (m, n) gets bias[n0 + m % BLOCK_M] (n0 = the tile's first column; 0 past N, the load's other)."""
    import torch
    bm, bn = block_along(meta, "M"), block_along(meta, "N")
    m, n = a.shape[0], b.shape[1]
    if not bm or bm != bn or (m <= bm and n <= bn):
        return None  # only a square tile broadcasts a (BLOCK_N, 1) column; one tile: the same as per row
    rows = torch.arange(m, device=a.device)[:, None] % bm
    idx = (torch.arange(n, device=a.device)[None, :] // bn) * bn + rows
    padded = torch.cat([bias, torch.zeros(bm, dtype=bias.dtype, device=bias.device)])
    return (a @ b + padded[idx.clamp(max=n)].where(idx < n, torch.zeros((), dtype=bias.dtype))).clamp_min(0)


EPILOGUE_MISTAKES = (
    Mistake("bias added per row (indexed by offs_m) instead of per column", "epilogue", _bias_per_row,
            name_zh="bias 按行加（用 offs_m 索引），而不是按列加"),
    Mistake("bias broadcast down the tile's rows (bias[:, None] instead of bias[None, :])", "epilogue",
            _bias_across_the_tile, name_zh="bias 沿 tile 的行方向广播（bias[:, None]，应为 bias[None, :]）"),
    Mistake("bias added twice", "epilogue", lambda a, b, bias, meta: (a @ b + 2 * bias).clamp_min(0),
            name_zh="bias 加了两次"),
    Mistake("bias added in every K step (inside the loop) instead of once", "epilogue", _bias_every_k_step,
            name_zh="bias 在每个 K 步（循环里）都加了一次，而不是只加一次"),
    Mistake("no relu", "epilogue", lambda a, b, bias, meta: a @ b + bias, name_zh="没有 relu"),
    Mistake("no bias", "epilogue", lambda a, b, bias, meta: (a @ b).clamp_min(0), name_zh="没有加 bias"),
    Mistake("relu before the bias", "epilogue", lambda a, b, bias, meta: (a @ b).clamp_min(0) + bias,
            name_zh="relu 在加 bias 之前做了"),
) + tuple(Mistake(m.name, m.category, (lambda f: lambda a, b, bias, meta: None if f(a, b, meta) is None
                                       else (f(a, b, meta) + bias).clamp_min(0))(m.reference),
                  name_zh=m.name_zh)
          for m in K_LOOP_MISTAKES)


def _bias_relu_bytes(size):
    m, n, k = size
    # Only the output is stored when the epilogue stays in registers; eager stores a @ b, then + bias, then relu.
    return {"stored": m * n * F16, "eager_stored": 3 * m * n * F16, "n": m * n}


# Attention: (B, H, S, D). S never a multiple of a block; D in {16, 32, 64}.
ATTENTION_SIZES = ((1, 1, 1, 16), (2, 2, 17, 32), (1, 2, 100, 64), (2, 1, 130, 16))


def _qkv(scale=1.0):
    def make(size, gen):
        return tuple(normal(size, gen, dtype="float16", scale=scale) for _ in range(3))
    return make


def _qkv_bshd(size, gen):
    """q, k, v as the (B, S, H, D) projections of a model leave them, viewed as (B, H, S, D): x.transpose(1, 2),
    strides (S*H*D, D, H*D, 1). A kernel must read them through their strides."""
    b, h, s, d = size
    return tuple(normal((b, s, h, d), gen, dtype="float16").transpose(1, 2) for _ in range(3))


def _qkv_negative(size, gen):
    """Every score far below zero (q >= 0, k <= 0, q.k / sqrt(D) < -20): exact for softmax (shift-invariant), but a
    running max that starts at 0 instead of -inf makes every p underflow."""
    q = normal(size, gen, dtype="float32").abs() * 6 + 1
    k = -(normal(size, gen, dtype="float32").abs() * 6 + 1)
    return q.half(), k.half(), normal(size, gen, dtype="float16")


def _qkv_steep(size, gen):
    """Scores that rise by ~30 from one key to the next: under a causal mask a row's visible keys score far below
    the masked ones in its block, so a mask applied after the max (or after exp) lets those into m and every
    visible p underflows."""
    import torch
    b, h, s, d = size
    q = normal(size, gen, dtype="float32").abs() * 0.1 + 1.0
    ramp = torch.arange(s, dtype=torch.float32, device=gen.device)[None, None, :, None] * (30.0 / math.sqrt(d))
    k = ramp.expand(b, h, s, d).contiguous()  # q.k / sqrt(D) ~ sqrt(D) * 30 / sqrt(D) = 30 per key
    return q.half(), k.half(), normal(size, gen, dtype="float16")


def _qkv_rising(size, gen):
    """Scores that grow along the key axis: every key block raises the running max, so a missing rescale shows."""
    import torch
    b, h, s, d = size
    # Scores rise from 0 to about 1.3 * sqrt(D): the max grows by ~1 per 64 keys, yet exp never overflows (that is
    # the large-scores probe's job), so only a missing rescale fails here.
    q = normal(size, gen, dtype="float32").abs() + 0.5
    ramp = torch.linspace(0.0, 1.0, s, dtype=torch.float32, device=gen.device)[None, None, :, None]
    k = (normal(size, gen, dtype="float32", scale=0.1) + 1.0) * ramp
    v = normal(size, gen, dtype="float32")
    return q.half(), k.half(), v.half()


def _scores(q, k, scale=None, causal=False, shift=0):
    """q k^T * scale (default 1/sqrt(D)), with keys j > i + shift masked when causal."""
    import torch
    d = q.shape[-1]
    s = (q @ k.transpose(-1, -2)) * (1 / math.sqrt(d) if scale is None else scale)
    if causal:
        n = q.shape[-2]
        s = s.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool, device=s.device), 1 + shift), float("-inf"))
    return s


def _attention_ref(q, k, v, causal=False):
    return _scores(q, k, causal=causal).softmax(-1) @ v


def _attention_terms(q, k, v, causal=False):
    """sum_j p_ij |v_jd|: the size of what each output element adds up (p is rounded to float16 for tl.dot)."""
    return _scores(q, k, causal=causal).softmax(-1) @ v.abs()


def _attention_eager(q, k, v, causal=False):
    """the materialised chain: scores (S, S) = q k^T / sqrt(D), softmax, @ v"""
    import torch
    s = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(q.shape[-1]))
    if causal:
        n = q.shape[-2]
        s = s.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool, device=q.device), 1), float("-inf"))
    return torch.matmul(torch.softmax(s.float(), dim=-1).to(q.dtype), v)


def _sdpa(q, k, v, causal=False):
    import torch.nn.functional as F
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


def _attention_flops(size):
    b, h, s, d = size
    return 4 * b * h * s * s * d


def _attention_bytes(size):
    b, h, s, d = size
    return {"stored": b * h * s * d * F16, "n": b * h * s * d}


def _online(q, k, v, causal, meta, rescale_acc, rescale_l):
    """The blockwise online softmax with one of its rescales left out (BLOCK_N from the kernel's launch)."""
    import torch
    bn = block_along(meta, "N")
    n = q.shape[-2]
    if not bn or bn >= n:
        return None  # one key block: nothing to rescale
    s = _scores(q, k, causal=causal)
    m = torch.full(s.shape[:-1], float("-inf"), dtype=s.dtype, device=s.device)
    l = torch.zeros(s.shape[:-1], dtype=s.dtype, device=s.device)
    acc = torch.zeros(q.shape, dtype=s.dtype, device=s.device)
    for j in range(0, n, bn):
        blk = s[..., j:j + bn]
        m_new = torch.maximum(m, blk.amax(-1))
        alpha = torch.exp(m - m_new)
        p = torch.exp(blk - m_new[..., None])
        l = (l * alpha if rescale_l else l) + p.sum(-1)
        acc = (acc * alpha[..., None] if rescale_acc else acc) + p @ v[..., j:j + bn, :]
        m = m_new
    return acc / l[..., None]


def _scaled(factor):
    """softmax with the scores scaled by factor(D) instead of 1/sqrt(D)."""
    def ref(q, k, v, meta, causal=False):
        return _scores(q, k, scale=factor(q.shape[-1]), causal=causal).softmax(-1) @ v
    return ref


def _causal_shift(shift):
    def ref(q, k, v, meta, causal=False):
        return _scores(q, k, causal=True, shift=shift).softmax(-1) @ v if causal else None
    return ref


def _keys_floor(q, k, v, meta, causal=False):
    """The key loop runs S // BLOCK_N blocks: the last, partial block of keys is never seen (a row that sees no key
    at all, as every row when S < BLOCK_N, comes out 0/0 = NaN, as the kernel's does)."""
    bn, n = block_along(meta, "N"), q.shape[-2]
    if not bn or n % bn == 0:
        return None
    s = _scores(q, k, causal=causal)
    s[..., (n // bn) * bn:] = float("-inf")
    return s.softmax(-1) @ v


ATTENTION_MISTAKES = (
    Mistake("the key loop drops the last partial block (S // BLOCK_N blocks)", "k-loop", _keys_floor,
            name_zh="key 循环丢掉了最后一个不满的块（只走了 S // BLOCK_N 块）"),
    Mistake("no 1/sqrt(D) scale", "scale", _scaled(lambda d: 1.0), name_zh="没有乘 1/sqrt(D) 缩放"),
    Mistake("1/D instead of 1/sqrt(D)", "scale", _scaled(lambda d: 1.0 / d), name_zh="乘的是 1/D，而不是 1/sqrt(D)"),
    Mistake("exp2 without log2(e) folded into the scale", "scale", _scaled(lambda d: math.log(2) / math.sqrt(d)),
            name_zh="用了 exp2，但缩放里没有乘上 log2(e)"),
    Mistake("log2(e) folded in, but exp instead of exp2", "scale", _scaled(lambda d: math.log2(math.e) / math.sqrt(d)),
            name_zh="缩放里乘上了 log2(e)，但用的是 exp 而不是 exp2"),
    Mistake("the causal mask hides the diagonal (key j < query i)", "causal", _causal_shift(-1),
            name_zh="causal mask 把对角线也遮住了（key j < query i）"),
    Mistake("the causal mask lets each query see one key ahead", "causal", _causal_shift(1),
            name_zh="causal mask 让每个 query 多看到了后面一个 key"),
    Mistake("causal=True ignored", "causal",
            lambda q, k, v, meta, causal=False: _attention_ref(q, k, v) if causal else None, name_zh="忽略了 causal=True"),
    Mistake("the causal mask applied on every call (causal=False still masks keys after the query)", "causal",
            lambda q, k, v, meta, causal=False: None if causal else _attention_ref(q, k, v, causal=True),
            name_zh="每次调用都加了 causal mask（causal=False 时仍遮住了 query 之后的 key）"),
    Mistake("acc not rescaled when the running max grows", "rescale",
            lambda q, k, v, meta, causal=False: _online(q, k, v, causal, meta, False, True),
            name_zh="运行最大值变大时 acc 没有重新缩放"),
    Mistake("l not rescaled when the running max grows", "rescale",
            lambda q, k, v, meta, causal=False: _online(q, k, v, causal, meta, True, False),
            name_zh="运行最大值变大时 l 没有重新缩放"),
    Mistake("neither acc nor l rescaled", "rescale",
            lambda q, k, v, meta, causal=False: _online(q, k, v, causal, meta, False, False),
            name_zh="acc 和 l 都没有重新缩放"),
)

SPECS += [
    DrillSpec(
        name="matmul",
        entry="matmul",
        signature="matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor  # (M, K) @ (K, N), float16, any strides",
        holes=("strides", "mask", "k-loop", "grid"),
        make_inputs=_mm_inputs,
        reference=_matmul_ref,
        sizes=MATMUL_SIZES,
        cuda_sizes=((1031, 1000, 1009),),
        seeds=1,
        tolerance=MATMUL_TOLERANCE,
        error_scale=_matmul_terms,
        family="tensor-core",
        probes=MATMUL_PROBES,
        mistakes=K_LOOP_MISTAKES,
        dims={"a": ("M", "K"), "b": ("K", "N"), "out": ("M", "N")},
        eager=_matmul_eager,
        # of cuBLAS (torch.matmul) at 4096^3. H200, 20 runs (benchmarks/tensor_cores.py): the reference 0.76-0.81x
        # (20/20 pass), the same matmul without tensor cores 0.048-0.051x (0/20).
        speedup_min=0.5,
        bench_size=(4096, 4096, 4096),
        bench_sizes=MATMUL_BENCH_SIZES,
        small_size=(512, 512, 512),
        flops=_matmul_flops,
        mock_minutes=30,
    ),
    DrillSpec(
        name="matmul-epilogue",
        entry="matmul_bias_relu",
        signature="matmul_bias_relu(a, b, bias) -> torch.Tensor  # relu(a @ b + bias), bias (N,), float16",
        holes=("epilogue",),
        make_inputs=_mm_bias_inputs(_mm_inputs),
        reference=_bias_relu_ref,
        sizes=MATMUL_SIZES,
        cuda_sizes=((1031, 1000, 1009),),
        seeds=1,
        tolerance=MATMUL_TOLERANCE,
        error_scale=_bias_relu_terms,
        family="tensor-core",
        probes=(Probe("b = w.t()", _mm_bias_inputs(_mm_b_transposed), ((100, 40, 257),), "strides"),),
        mistakes=EPILOGUE_MISTAKES,
        dims={"a": ("M", "K"), "b": ("K", "N"), "bias": ("N",), "out": ("M", "N")},
        input_categories={"bias": "epilogue"},
        max_launches=1,
        byte_model=_bias_relu_bytes,
        bytes_proof=True,
        intermediate={"en": "the (M, N) product a @ b", "zh": "(M, N) 的乘积 a @ b"},
        eager=_bias_relu_eager,
        # `drill inductor`: the Triton mm template with relu fused into its epilogue (cudagraphs left out: they change
        # how call() is replayed, not the kernel, and they recycle the first call's output on the second), and on
        # CUDA a second compile with every GEMM backend allowed, to see whether cuBLAS or the template wins there.
        compile_options=CompileOptions(mode="max-autotune-no-cudagraphs",
                                       options={"max_autotune_gemm_backends": "TRITON"}, compare={},
                                       cuda_size=(8192, 8192, 512)),
        # vs eager matmul + add + relu at 8192x8192x512, where the epilogue's traffic matters. H200, 20 runs: the
        # fused reference 2.08-2.15x (20/20), a Triton matmul then a bias+relu kernel 1.57-1.59x (0/20).
        speedup_min=1.8,
        bench_size=(8192, 8192, 512),
        bench_sizes=((1024, 1024, 1024), (4096, 4096, 256), (4096, 4096, 4096), (8192, 8192, 512),
                     (8192, 8192, 8192)),
        small_size=(512, 512, 512),
        flops=_matmul_flops,
        mock_minutes=25,
    ),
    DrillSpec(
        name="attention",
        entry="attention",
        signature="attention(q, k, v, causal=False) -> torch.Tensor  # (B, H, S, D) float16, scale 1/sqrt(D)",
        holes=("scale", "causal", "rescale"),
        make_inputs=_qkv(),
        reference=_attention_ref,
        sizes=ATTENTION_SIZES,
        cuda_sizes=((2, 4, 1000, 128), (1, 2, 2051, 64)),
        seeds=1,
        tolerance={"float16": (2e-3, 4e-3)},  # atol x sum_j p_ij |v_jd|: p is rounded to float16 for the second dot
        error_scale=_attention_terms,
        family="tensor-core",
        probes=(Probe("causal", _qkv(), ((2, 2, 17, 32), (1, 2, 100, 64), (1, 1, 130, 16)), "causal",
                      kwargs={"causal": True}),
                Probe("large scores", _qkv(scale=12.0), ((1, 2, 100, 64),), "stability", name_zh="分数很大"),
                Probe("rising max", _qkv_rising, ((1, 1, 300, 32),), "rescale", name_zh="最大值逐块增大"),
                Probe("rising max, causal", _qkv_rising, ((1, 1, 300, 32),), "rescale", kwargs={"causal": True},
                      name_zh="最大值逐块增大，causal"),
                Probe("negative scores", _qkv_negative, ((1, 2, 100, 64),), "stability", name_zh="分数为负"),
                Probe("steep scores, causal", _qkv_steep, ((1, 1, 100, 32),), "causal", kwargs={"causal": True},
                      name_zh="分数陡峭，causal"),
                Probe("q, k, v = x.transpose(1, 2)", _qkv_bshd, ((2, 2, 17, 32), (1, 2, 100, 64)), "strides")),
        mistakes=ATTENTION_MISTAKES,
        dims={t: ("B", "H", "S", "D") for t in ("q", "k", "v", "out")},
        max_launches=1,
        byte_model=_attention_bytes,
        bytes_proof=True,
        intermediate={"en": "the (S, S) scores", "zh": "(S, S) 的分数矩阵"},
        eager=_attention_eager,
        speed_refs=(("F.scaled_dot_product_attention", _sdpa),),
        # vs the materialised chain at (4, 16, 4096, 64). H200, 20 runs: the reference 12.6-13.8x (20/20), scores
        # materialised by two Triton kernels 0.010x (0/20).
        speedup_min=3.0,
        bench_size=(4, 16, 4096, 64),
        bench_sizes=tuple((4, 16, s, 64) for s in (512, 1024, 2048, 4096, 8192)) + ((4, 16, 4096, 128),),
        small_size=(1, 4, 512, 64),
        flops=_attention_flops,
        mock_minutes=40,
    ),
]


# -- Serving: paged decode attention, a 4-bit weight GEMM, convolution (drills/serving_specs.py) --------------------
from drills.serving_specs import SERVING_SPECS  # noqa: E402

SPECS += SERVING_SPECS


# -- training drills: forward and backward, graded on the gradients (drills/training_specs.py) -------------------
from drills.training_specs import TRAINING_SPECS  # noqa: E402

SPECS += TRAINING_SPECS

from drills.cross_entropy_spec import CROSS_ENTROPY  # noqa: E402  (issue 21's second training drill)

SPECS.append(CROSS_ENTROPY)


# -- A new accelerator: the guide's chapter 8 "GXU" (at most 32 programs per launch, 16 warps per program) ---------
from grader.core.contract import config_problems  # noqa: E402
from grader.core.spec import DeviceLimits, FunctionContract  # noqa: E402

GXU = DeviceLimits(name="GXU", max_programs=32, max_warps=16, min_block=128, max_block=1024)


def _contract_sizes(limit: int = 10**9) -> tuple[int, ...]:
    """1 .. 10^9: each power of two and its neighbours, powers of ten, the sizes where the GXU's grid first fills
    (32 x each block size, and one past), and a few primes. Pure calls: ~150 of them cost microseconds."""
    sizes = {limit, 12289, 100003, 999999937}
    for k in range(31):
        sizes.update((2**k - 1, 2**k, 2**k + 1))
    for k in range(10):
        sizes.add(10**k)
    block = GXU.min_block
    while block <= GXU.max_block:
        sizes.update((GXU.max_programs * block, GXU.max_programs * block + 1))
        block *= 2
    return tuple(sorted(s for s in sizes if 1 <= s <= limit))


def _gxu_config_problems(numel: int, config) -> list[dict]:
    """pick_config(numel) on the GXU: XBLOCK a power of two in [128, 1024], num_warps a power of two in [1, 16]
    (Triton's NVIDIA backend also asserts a power of two), grid in [1, 32]."""
    return config_problems(config, (
        ("XBLOCK", "xblock", GXU.min_block, GXU.max_block, True),
        ("num_warps", "warps", 1, GXU.max_warps, True),
        ("grid", "grid", 1, GXU.max_programs, False),
    ))


def _mul_relu_ref(x):
    return (2 * x).clamp_min(0)


def _mul_relu_eager(x):
    """Eager PyTorch: two kernels (mul, then relu); Inductor fuses them into triton_poi_fused_mul_relu_0."""
    import torch
    return torch.relu(x * 2)


SPECS += [
    DrillSpec(
        name="heuristics",
        entry="mul_relu",
        signature="mul_relu(x: torch.Tensor) -> torch.Tensor  # relu(2 * x), launched with pick_config(x.numel())",
        holes=("xblock", "warps", "grid", "loop"),
        make_inputs=_one_vector,
        reference=_mul_relu_ref,
        eager=_mul_relu_eager,
        # Either side of 32 programs x 128 / x 1024 (where XBLOCK stops growing and the loop starts), a prime,
        # 64 tiles with a partial last one, and the guide's n.
        sizes=(1, 1000, 4097, 12289, 32769, 64517, 100000),
        cuda_sizes=LARGE,
        seeds=2,
        family="device-limits",
        max_programs=GXU.max_programs,  # tiles missed or stored twice by the capped grid: `persistent`
        device_limits=GXU,
        contract=FunctionContract(
            function="pick_config",
            signature='pick_config(numel: int) -> {"XBLOCK": int, "num_warps": int, "grid": int}',
            inputs=_contract_sizes(),
            check=_gxu_config_problems,
            # what mul_relu launches at numel n must be what pick_config(n) returned: key -> (launch record, category)
            launch_fields={"XBLOCK": ("block", "xblock"), "num_warps": ("num_warps", "warps"),
                           "grid": ("programs", "grid")},
        ),
    ),
]


# -- compile labs: graded by what torch.compile itself reports (grader/families/compiled.py) -----------------------
from grader.core.spec import CompileLab, Mistake  # noqa: E402

GB_D, GB_H = 16, 8


def _step_inputs(size, gen):
    """x (B, 16), w (16, 8). Odd batches are small enough that max|x @ w| stays under 4 (the scaling is skipped),
    even ones are not: both paths of the original's `if peak > 4.0` are graded."""
    import torch
    batch = size[0] if isinstance(size, (tuple, list)) else size
    scale = 0.02 if batch % 2 else 1.0
    x = torch.randn(batch, GB_D, generator=gen) * scale
    w = torch.randn(GB_D, GB_H, generator=gen)
    return x, w


def _step_ref(x, w):
    """original_step (drills/graph_breaks.py) in float64, without its print and its log list."""
    import torch
    h = x @ w
    h = h * torch.clamp(4.0 / h.abs().amax(), max=1.0)
    h = torch.where(h < 0, 0.5 * h, h).clamp(-1.0, 2.0)  # np.interp(h, [-2, 0, 2], [-1, 0, 2])
    return h * (h.sum(dim=1) > 0).to(h.dtype)[:, None]


# Dynamo's reason (or the guard it failed) -> the hole that causes it.
_GB_BLAME = (
    (r"\bprint\b", "print"),
    (r"item\(\)|tolist|capture_scalar_outputs|[Dd]ata.dependent|Tensor\.item|\bpeak\b", "item"),
    (r"numpy|np\.", "numpy"),
    (r"[Dd]ynamic shape operator|nonzero|capture_dynamic_output_shape_ops", "nonzero"),
    (r"HISTORY|len\(G\[|G\['HISTORY", "history"),
    (r"Mod\(|%|size\(\)\[0\]|shape\[0\]|\bs\d+\b|L\['x'\]", "branch"),
)


def _add_relu_x2(x, y):
    """torch.relu, not clamp_min: its gradient is PyTorch's relu gradient, 0 where x + y == 0 exactly."""
    import torch
    return 2 * torch.relu(x + y)


def _add_relu_grads_wrong_sign(x, y, g):
    d = -2 * g * ((x + y) > 0).to(g.dtype)
    return d, d


def _add_relu_grads_no_mask(x, y, g):
    return 2 * g, 2 * g


def _add_relu_grads_at_zero(x, y, g):
    d = 2 * g * ((x + y) >= 0).to(g.dtype)
    return d, d


SPECS += [
    DrillSpec(
        name="graph-breaks",
        entry="step",
        signature="step(x: (B, 16) float32, w: (16, 8) float32) -> (B, 8) float32  # == original_step(x, w)",
        holes=("print", "branch", "item", "numpy", "nonzero", "history"),
        make_inputs=_step_inputs,
        reference=_step_ref,
        sizes=((1, GB_D), (7, GB_D), (24, GB_D), (33, GB_D), (64, GB_D)),
        seeds=3,
        family="compile",
        timeout_s=90.0,
        compile_lab=CompileLab(
            backend="aot_eager",
            shapes=((24, GB_D), (13, GB_D), (40, GB_D), (7, GB_D), (64, GB_D)),
            dynamic={0: (0,)},
            max_recompiles=0,
            blame=_GB_BLAME,
            inputs_device="cpu",  # original_step round-trips through NumPy: CPU tensors on every machine
        ),
    ),
    DrillSpec(
        name="custom-op",
        entry="model",
        signature="model(x, y) = drill::add_relu(x, y) * 2  # x, y float32 vectors; add_relu a triton_op",
        holes=("registration", "fake", "wrap", "autograd"),
        make_inputs=_two_vectors,
        reference=_add_relu_x2,
        sizes=(1, BLOCK - 1, BLOCK + 1, 12289),
        seeds=2,
        family="compile",
        timeout_s=90.0,
        compile_lab=CompileLab(
            backend="aot_eager",
            shapes=(1000, 4097, 12289),
            dynamic={0: (0,), 1: (0,)},
            max_recompiles=0,
            op="drill::add_relu",
            op_inputs=2,
            op_reference=_add_relu,
            grad=True,
            grad_mistakes=(Mistake("gradient with the wrong sign", "autograd", _add_relu_grads_wrong_sign,
                                   name_zh="梯度的符号反了"),
                           Mistake("gradient without the relu's mask (x + y > 0)", "autograd",
                                   _add_relu_grads_no_mask, name_zh="梯度没有乘 relu 的 mask（x + y > 0）"),
                           Mistake("gradient 1 where x + y == 0 exactly (torch.relu's gradient is 0 there: mask "
                                   "x + y > 0, not >= 0)", "autograd", _add_relu_grads_at_zero,
                                   name_zh="x + y 恰好等于 0 处梯度为 1（torch.relu 在那里的梯度是 0：mask 应为 x + y > 0，而不是 >= 0）")),
            inductor_kernel=True,
            source_lines=(("registration", r"drill::add_relu|^def add_relu"), ("fake", r"custom_op|register_fake"),
                          ("fake", r"^def add_relu"), ("wrap", r"\]\(x, y, out|\[grid\]|\[\("),
                          ("autograd", r"^def backward"), ("autograd", r"register_autograd"),
                          ("graph-break", r"^def model")),
        ),
    ),
]
