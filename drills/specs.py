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
        intermediate="the 8 intermediates of the op chain (x·x, x³, ..., tanh(inner), 1 + tanh, 0.5·x)",
        speedup_min=4.0,
        speed_refs=(('F.gelu(approximate="tanh") (one aten kernel)', _gelu_aten),),
    ),
]
