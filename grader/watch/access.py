"""What an out-of-bounds access was, dimension by dimension (interpreter evidence for the diagnosis).

A tile access in Triton is `base + i0 * s0 + i1 * s1 + ...` over the tile's axes. From the lanes' addresses the step of
each tile axis is known; matched with the tensor's strides it names the tensor dimension the axis walks, and the
index each lane reaches along it. So a report can say which dimension went out of range (rows, columns, K), how far,
and whether the access's mask bounds that axis at all, instead of guessing from the distance past the end.
"""
from __future__ import annotations

import numpy as np


def base_index(offset: int, shape, stride) -> list[int] | None:
    """The logical index of an element offset in a tensor with non-negative strides (largest stride first)."""
    index = [0] * len(shape)
    order = sorted(range(len(shape)), key=lambda d: -int(stride[d]))
    rest = int(offset)
    for d in order:
        st = int(stride[d])
        if int(shape[d]) <= 1 or st <= 0:
            continue
        index[d], rest = divmod(rest, st)
    return index if rest == 0 else None


def describe(addrs: np.ndarray, mask: np.ndarray, bad: np.ndarray, elsize: int, region) -> dict | None:
    """Per tile axis of one access: the tensor dim it walks, the index range its active lanes reach along that dim,
    and whether the mask bounds the axis. Only for tensors viewed with positive strides and accesses whose addresses
    are affine over the tile (a gather is not described). `bad`: the lanes that left the tensor."""
    shape, stride = tuple(region.tensor.shape), tuple(region.tensor.stride())
    if addrs.ndim == 0 or addrs.size < 2 or not shape or any(int(s) < 0 for s in stride):
        return None
    flat0 = int(addrs.reshape(-1)[0])
    steps = []
    for ax, n in enumerate(addrs.shape):
        if n < 2:
            steps.append(0)
            continue
        one = [0] * addrs.ndim
        one[ax] = 1
        diff = int(addrs[tuple(one)]) - flat0
        if diff % elsize:
            return None
        steps.append(diff // elsize)
    grid = np.indices(addrs.shape).reshape(addrs.ndim, -1)
    predicted = flat0 + elsize * np.tensordot(np.array(steps, dtype=np.int64), grid, axes=1)
    if not np.array_equal(predicted.astype(np.uint64), addrs.reshape(-1)):
        return None  # not one affine tile: nothing to say per axis
    base = base_index((flat0 - region.start) // elsize, shape, stride) if flat0 >= region.start else None
    axes = []
    for ax, n in enumerate(addrs.shape):
        if n < 2 or steps[ax] == 0:
            continue
        dims = [d for d in range(len(shape)) if int(stride[d]) == steps[ax] and int(shape[d]) > 1]
        if not dims:
            continue
        d = dims[0]
        others = tuple(i for i in range(addrs.ndim) if i != ax)
        active_along = mask.any(axis=others) if others else mask
        bad_along = bad.any(axis=others) if others else bad
        on = np.flatnonzero(active_along)
        row = {"axis": ax, "dim": d, "size": int(shape[d]), "tile": int(n),
               "bounded": bool(on.size and on.size < n), "bad": bool(bad_along.any())}
        # A 1-D access over a tensor of more dims walks one row (a row kernel: it starts at a multiple of its tile)
        # or the flattened tensor (Inductor's xindex: it starts anywhere and wraps): only the first is per dim.
        flat_walk = base is not None and len(shape) > 1 and sum(1 for k in addrs.shape if k > 1) == 1 \
            and base[d] % n != 0
        if base is not None and on.size and not flat_walk:
            row["first"] = int(base[d] + on[0])
            row["last"] = int(base[d] + on[-1])  # the last index an active lane reaches along this dim
        axes.append(row)
    return {"tile": list(addrs.shape), "axes": axes, "tensor_shape": [int(s) for s in shape]}


def out_of_range(info: dict | None) -> dict | None:
    """The axis whose active lanes reach past its dimension's end (or before its start), if one does."""
    for row in (info or {}).get("axes", []):
        if "last" in row and (row["last"] >= row["size"] or row["first"] < 0):
            return row
    return None
