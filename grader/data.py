"""Input makers for drill specs: data that makes mistakes visible (negatives, zeros, large magnitudes)."""
from __future__ import annotations

import torch

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "float64": torch.float64}


def shape_of(size) -> tuple:
    return (int(size),) if isinstance(size, int) else tuple(int(s) for s in size)


def mixed(size, gen: torch.Generator, dtype="float32", scale: float = 1.0) -> torch.Tensor:
    """Normal values with 5 % zeros, 5 % large magnitudes (1e3..1e4, both signs) and the rest ~N(0, scale)."""
    shape = shape_of(size)
    x = torch.randn(shape, generator=gen, dtype=torch.float64) * scale
    flat = x.view(-1)
    pick = torch.rand(flat.numel(), generator=gen, dtype=torch.float64)
    big = (pick >= 0.05) & (pick < 0.10)
    mag = 1e3 + 9e3 * torch.rand(flat.numel(), generator=gen, dtype=torch.float64)
    flat[big] = torch.where(flat[big] < 0, -mag[big], mag[big])
    flat[pick < 0.05] = 0.0
    return x.to(DTYPES[dtype])


def normal(size, gen: torch.Generator, dtype="float32", scale: float = 1.0, shift: float = 0.0) -> torch.Tensor:
    x = torch.randn(shape_of(size), generator=gen, dtype=torch.float64) * scale + shift
    return x.to(DTYPES[dtype])
