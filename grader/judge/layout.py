"""The output's layout, judged as PyTorch defines it: any stride order is a valid tensor, as long as it is dense and
non-overlapping (every element has its own address, no gaps). `torch.empty_like(q)` keeps q's strides
(memory_format=torch.preserve_format), and flash SDPA returns that layout too; only a drill whose point is the layout
(a contiguous result) asks for more, in its spec (`contiguous_output`).

Interpreter evidence is recorded per storage element (where a store lane landed); `logical_index` turns those into
the output's logical (row-major) indices, so unwritten and duplicated elements are found for any stride order.
"""
from __future__ import annotations

import numpy as np
import torch


def dense_non_overlapping(t: torch.Tensor) -> bool:
    """Every element has one address of its own and the addresses fill one block with no gaps (the PyTorch notion
    of a dense, non-overlapping tensor: some permutation of its dims is contiguous)."""
    dims = sorted(((int(st), int(n)) for n, st in zip(t.shape, t.stride()) if int(n) != 1), key=lambda d: d[0])
    expected = 1
    for st, n in dims:
        if st != expected:
            return False
        expected *= n
    return True


def storage_positions(t: torch.Tensor) -> torch.Tensor:
    """For each logical (row-major) index of `t`, its element offset from t's first element in storage."""
    pos = torch.zeros((), dtype=torch.int64)
    for d, (n, st) in enumerate(zip(t.shape, t.stride())):
        shape = [1] * t.dim()
        shape[d] = int(n)
        pos = pos + torch.arange(int(n), dtype=torch.int64).view(shape) * int(st)
    return pos.expand(tuple(t.shape)).reshape(-1)


class LogicalIndex:
    """Maps element offsets in storage (from the tensor's first element) to logical indices; -1 where no logical
    element lives (a gap of a strided view, or outside it). The identity for a contiguous tensor."""

    def __init__(self, t: torch.Tensor):
        self.numel = t.numel()
        self.identity = t.is_contiguous()
        if not self.identity:
            pos = storage_positions(t).numpy()
            self.table = np.full(int(pos.max()) + 1 if pos.size else 0, -1, dtype=np.int64)
            self.table[pos] = np.arange(pos.size, dtype=np.int64)

    def __call__(self, offsets: np.ndarray) -> np.ndarray:
        """Logical indices of the offsets that land on an element of the tensor (others dropped)."""
        if self.identity:
            return offsets[(offsets >= 0) & (offsets < self.numel)]
        inside = offsets[(offsets >= 0) & (offsets < self.table.size)]
        idx = self.table[inside]
        return idx[idx >= 0]
