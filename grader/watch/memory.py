"""Guarded buffers: every tensor the grader hands out, or the learner allocates, lives inside a larger buffer whose
guard bands hold a sentinel bit pattern. The registry of these regions tells which tensor an address belongs to.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

GUARD_ELEMS = 32768  # larger than any BLOCK a learner would pick, so a tail overrun lands in a guard band

# Quiet-NaN (or odd integer) bit patterns: distinguishable from anything a kernel computes.
_SENTINEL_BITS = {
    torch.float32: (torch.int32, 0x7FDEAD5A),
    torch.float64: (torch.int64, 0x7FFDEAD5A5A5A5A5),
    torch.float16: (torch.int16, 0x7E5A),
    torch.bfloat16: (torch.int16, 0x7FDA),
    torch.int32: (torch.int32, -559038737),
    torch.int64: (torch.int64, -559038737),
    # Byte tensors (packed int4 weights): without a pattern their guard bands read as all overwritten.
    torch.uint8: (torch.uint8, 0xA5),
    torch.int8: (torch.int8, -91),
}


def span_elems(shape, stride) -> int:
    """Elements from a view's first to its last element, gaps included (a transposed or sliced view's extent)."""
    shape, stride = tuple(shape), tuple(stride)
    if any(int(n) == 0 for n in shape):
        return 0
    return 1 + sum((int(n) - 1) * abs(int(st)) for n, st in zip(shape, stride))


def bits_view(t: torch.Tensor) -> torch.Tensor | None:
    spec = _SENTINEL_BITS.get(t.dtype)
    return t.view(spec[0]) if spec else None


def fill_sentinel(t: torch.Tensor) -> None:
    spec = _SENTINEL_BITS.get(t.dtype)
    if spec is None:
        t.fill_(0)
    else:
        t.view(spec[0]).fill_(spec[1])


def is_sentinel(t: torch.Tensor) -> torch.Tensor:
    """Bool mask of elements that still hold the sentinel pattern (never written)."""
    spec = _SENTINEL_BITS.get(t.dtype)
    if spec is None:
        return torch.zeros(t.shape, dtype=torch.bool, device=t.device)
    return t.view(spec[0]) == spec[1]


@dataclass(eq=False)  # identity, not field-wise (tensor) comparison
class Region:
    name: str            # "input x", "output (torch.empty_like at line 40)", ...
    kind: str            # "input" | "alloc" | "other"
    tensor: torch.Tensor  # the view handed out
    start: int           # first byte of the data
    end: int             # one past the last byte of the data
    buffer: torch.Tensor | None = None  # the whole guarded buffer (None: not guarded)
    sentinel_filled: bool = False       # data was pre-filled with the sentinel
    elsize: int = 4
    stored: list = field(default_factory=list)  # element indices written by Triton stores (interpreter only)
    masked: list = field(default_factory=list)  # element indices store lanes pointed at, masked off (interpreter)
    store_lines: dict = field(default_factory=dict)  # learner's line -> store lanes written here from it (interpreter)
    no_device_line: int | None = None   # allocated by a factory call with no device= (CPU on a GPU machine), here

    def guard_hits(self) -> dict:
        """Count guard-band elements that no longer hold the sentinel: writes past either end."""
        if self.buffer is None:
            return {"before": 0, "after": 0, "first_after": None, "last_before": None}
        numel = (self.end - self.start) // self.elsize  # the view's extent (a strided view spans more)
        lo = self.buffer[:GUARD_ELEMS]
        hi = self.buffer[GUARD_ELEMS + numel:]
        lo_hit = ~is_sentinel(lo)
        hi_hit = ~is_sentinel(hi)
        after = int(hi_hit.sum())
        before = int(lo_hit.sum())
        first_after = int(hi_hit.nonzero()[0].item()) if after else None
        last_after = int(hi_hit.nonzero()[-1].item()) if after else None
        last_before = int(GUARD_ELEMS - 1 - lo_hit.nonzero()[-1].item()) if before else None
        return {"before": before, "after": after, "first_after": first_after, "last_after": last_after,
                "last_before": last_before}


class Memory:
    """All regions of one graded call, searchable by address."""

    def __init__(self, device: str, carried: list[Region] = ()):
        """`carried`: regions that outlive one call (tensors made at import, outputs a wrapper caches)."""
        self.device = device
        self.regions: list[Region] = []
        self._starts = None
        self._ends = None
        for r in carried:
            r.stored, r.masked, r.store_lines = [], [], {}  # stores are evidence of the call at hand only
            self.regions.append(r)
        if self.regions:
            self._index()

    def _index(self):
        order = sorted(range(len(self.regions)), key=lambda i: self.regions[i].start)
        self.regions = [self.regions[i] for i in order]
        self._starts = np.array([r.start for r in self.regions], dtype=np.uint64)
        self._ends = np.array([r.end for r in self.regions], dtype=np.uint64)

    def guarded(self, shape, dtype, name: str, kind: str, fill_value=None, stride=None) -> torch.Tensor:
        """A new tensor inside guard bands: contiguous, or with the given strides (the bands then flank its whole
        extent, gaps included)."""
        numel = 1
        for s in shape:
            numel *= int(s)
        extent = numel if stride is None else span_elems(shape, stride)
        buf = torch.empty(extent + 2 * GUARD_ELEMS, dtype=dtype, device=self.device)
        fill_sentinel(buf)
        data = buf[GUARD_ELEMS:GUARD_ELEMS + extent]
        view = data.view(tuple(shape)) if stride is None else data.as_strided(tuple(shape), tuple(stride))
        if fill_value is not None:
            view.fill_(fill_value)
        self.add(view, name, kind, buffer=buf, sentinel_filled=fill_value is None)
        return view

    def place(self, t: torch.Tensor, name: str) -> torch.Tensor:
        """A copy of `t` on the grading device, inside guard bands, with t's layout (a transposed view stays one:
        kernels must read inputs through their strides)."""
        stride = None if t.is_contiguous() else t.stride()
        view = self.guarded(t.shape, t.dtype, name, "input", fill_value=0, stride=stride)
        view.copy_(t.to(self.device))
        self.regions[-1].sentinel_filled = False
        return view

    def add(self, t: torch.Tensor, name: str, kind: str, buffer=None, sentinel_filled=False) -> Region:
        start = t.data_ptr()
        end = start + max(span_elems(t.shape, t.stride()), 1) * t.element_size()
        for r in self.regions:  # a view of a known tensor (or the same one again): keep the first, whole region
            if r.start <= start and end <= r.end:
                return r
            if start < r.end and r.start < end:  # partly overlapping: the owner lookup needs disjoint regions
                return r
        r = Region(name, kind, t, start, end, buffer, sentinel_filled, t.element_size())
        self.regions.append(r)
        self._index()
        return r

    def region_of(self, t: torch.Tensor) -> Region | None:
        p = t.data_ptr()
        for r in self.regions:
            if r.start <= p < r.end or (t.numel() == 0 and p == r.start):
                return r
        return None

    def owners(self, addrs: np.ndarray) -> np.ndarray:
        """Region index per address (-1: inside no region)."""
        if not self.regions:
            return np.full(addrs.shape, -1, dtype=np.int64)
        idx = np.searchsorted(self._starts, addrs, side="right").astype(np.int64) - 1
        safe = np.clip(idx, 0, None)
        inside = (idx >= 0) & (addrs < self._ends[safe])
        return np.where(inside, idx, -1)

    def sole_owner(self, addrs: np.ndarray) -> int | None:
        """The region index holding every address of a non-empty ADDRS, or None when they are not all in one region
        (then ask `owners`). Regions are disjoint intervals, so the lowest and the highest address decide: two
        reductions instead of a search per lane, for the common access that stays inside one tensor."""
        if not self.regions:
            return None
        lo, hi = addrs.min(), addrs.max()
        i = int(np.searchsorted(self._starts, lo, side="right")) - 1
        if i < 0 or hi >= self._ends[i]:
            return None
        return i

    def nearest(self, addr: int) -> tuple[int, str, int]:
        """For an address outside every region: the closest region, the side, and the element offset."""
        best = None
        for i, r in enumerate(self.regions):
            if addr >= r.end:
                d, side, elem = addr - r.end, "after", (addr - r.start) // r.elsize
            else:
                d, side, elem = r.start - addr, "before", -((r.start - addr + r.elsize - 1) // r.elsize)
            if best is None or d < best[0]:
                best = (d, i, side, elem)
        return best[1], best[2], best[3]
