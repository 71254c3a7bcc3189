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
