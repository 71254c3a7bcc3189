"""One entry per drill: the data the grader needs. No torch import at module level (keeps `drill list` fast)."""
from __future__ import annotations

from grader.data import mixed
from grader.spec import DrillSpec

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
        intermediate="the 8 intermediates of the op chain (x·x, x³, ..., tanh(inner), 1 + tanh, 0.5·x)",
        speedup_min=4.0,
        speed_refs=(('F.gelu(approximate="tanh") (one aten kernel)', _gelu_aten),),
    ),
]

# -- Beyond pointwise: the Inductor chapter's kernels (2-D indexing, reductions, persistent grid, autotune) --------
# Sizes keep a CPU grade under ~5 s: the interpreter costs ~0.5 ms per program (more for wide 2-D blocks).
from grader.data import normal  # noqa: E402
from grader.spec import Probe  # noqa: E402


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


def _softmax_ref(x):
    e = (x - x.max(dim=1, keepdim=True).values).exp()
    return e / e.sum(dim=1, keepdim=True)


def _softmax_eager(x):
    """The naive op chain a learner would write in eager PyTorch (what the Triton kernel must beat)."""
    m = x.max(dim=1, keepdim=True).values
    e = (x - m).exp()
    return e / e.sum(dim=1, keepdim=True)


def _rms_inputs(dtype):
    def make(size, gen):
        return normal(size, gen, dtype=dtype), normal((size[1],), gen, dtype=dtype, scale=0.5, shift=1.0)
    return make


def _rmsnorm_ref(x, weight, eps=1e-6):
    return x * (x.pow(2).mean(dim=-1, keepdim=True) + eps).rsqrt() * weight


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
        probes=(Probe("all-negative", _rows_all_negative, ((16, 781),), "other"),
                Probe("x30", _rows_x30, ((16, 781),), "stability")),
        masked_other=(float("-inf"), "other"),
        eager=_softmax_eager,
        byte_model=_softmax_bytes,
        speedup_min=2.0,  # H200: the reference is 5.4x the naive chain at 4096x8192
        bench_size=(4096, 8192),
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
        probes=(Probe("bfloat16", _rms_inputs("bfloat16"), ((13, 781), (8, 1024))),),
        eager=_rmsnorm_eager,
        byte_model=_rmsnorm_bytes,
        speedup_min=2.0,  # H200: the reference is 4.5x the naive chain at 4096x8192
        bench_size=(4096, 8192),
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

# -- A new accelerator: the guide's chapter 8 "GXU" (at most 32 programs per launch, 16 warps per program) ---------
from grader.limits import config_problems  # noqa: E402
from grader.spec import DeviceLimits, FunctionContract  # noqa: E402

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
