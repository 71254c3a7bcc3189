"""Run one graded call of the learner's entry point and turn what happened into evidence (plain, JSON-able data)."""
from __future__ import annotations

import traceback

import numpy as np
import torch

from grader.core import catalog
from grader.judge.layout import LogicalIndex, dense_non_overlapping
from grader.core.arrays import distinct_count, unique
from grader.core.meta import block_along
from grader.watch.memory import Memory, is_sentinel


def learner_line_of(exc: BaseException, learner_file: str) -> int | None:
    line = None
    seen = set()
    e = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        for frame, lineno in traceback.walk_tb(e.__traceback__):
            if frame.f_code.co_filename == learner_file:
                line = lineno
        if line is not None:
            return line
        e = e.__cause__ or e.__context__
    return line


def describe_exception(exc: BaseException, learner_file: str) -> dict:
    if getattr(exc, "detail", None) and exc.detail.get("compiler"):  # grader.watch.compile_check.CompilerRejects
        return dict(exc.detail, line=exc.detail.get("line") or learner_line_of(exc, learner_file))
    root = exc
    # Triton's interpreter wraps kernel errors; the learner's mistake is the cause.
    while type(root).__name__ == "InterpreterError" and root.__cause__ is not None:
        root = root.__cause__
    text = str(root).strip() or type(root).__name__
    if isinstance(root, SystemExit):
        text = catalog.text("check_details.exit_called", "en", code=repr(root.code))
    elif isinstance(root, KeyboardInterrupt):
        text = catalog.text("check_details.interrupted", "en")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return {
        "type": type(root).__name__,
        "message": "\n".join(lines[:12])[:1500],
        "line": learner_line_of(exc, learner_file),
        "cuda_fault": "illegal memory access" in text or "misaligned address" in text
                      or "unspecified launch failure" in text,
    }


def _close(out64: torch.Tensor, ref: torch.Tensor, rtol: float, atol: float) -> torch.Tensor:
    both_nan = torch.isnan(out64) & torch.isnan(ref)
    same_inf = torch.isinf(ref) & (out64 == ref)
    return ((out64 - ref).abs() <= atol + rtol * ref.abs()) | both_nan | same_inf


def count_wrong(spec, args, out, kwargs: dict | None = None) -> tuple[int, int]:
    """(elements of `out` outside the drill's tolerance of its float64 reference, elements of the reference), with
    atol x the drill's error scale where it has one, as in grading. A non-tensor or wrongly shaped `out` is wrong
    everywhere. Runs on the inputs' device (the speed gate's and `drill bench`'s large shapes stay on the GPU)."""
    kw = spec.kwargs if kwargs is None else kwargs
    as64 = [t.double() for t in args]
    ref = spec.reference(*as64, **kw)
    if not isinstance(out, torch.Tensor) or tuple(out.shape) != tuple(ref.shape):
        return int(ref.numel()), int(ref.numel())
    rtol, atol = spec.tolerance_for(str(out.dtype).replace("torch.", ""))
    if spec.error_scale is not None:  # on the reference's device: a drill's scale may be a host scalar
        atol = atol * torch.as_tensor(spec.error_scale(*as64, **kw)).to(ref.device).reshape(-1)
    return int((~_close(out.double().reshape(-1), ref.reshape(-1), rtol, atol)).sum()), int(ref.numel())


def matches(out, ref, tolerance: tuple[float, float], share: float = 0.999) -> bool:
    """At least `share` of the elements of `out` within twice `tolerance` (rtol, atol) of `ref` (NaN matches NaN):
    how a known mistake is recognised in an output that carries its own rounding."""
    rtol, atol = tolerance
    close = _close(out.double(), ref.double().to(out.device), 2 * rtol, 2 * atol)
    return bool(close.float().mean() >= share) if close.numel() else True


def _unravel(i: int, shape) -> list:
    return [int(v) for v in np.unravel_index(i, tuple(shape))] if len(shape) > 1 else [i]


def evaluate_output(out, ref, inputs_cpu, arg_names, memory: Memory, recorder_launches, spec, interpreted: bool,
                    expected_dtype, device: str, scale=None, store_spans=None, issued=None) -> dict:
    """Shape/dtype/device, unwritten elements, values, tiles. `inputs_cpu` are the inputs as given (for display);
    `scale` (optional, like ref) multiplies atol: the magnitude of the terms a reduction added up."""
    ev: dict = {}
    if not isinstance(out, torch.Tensor):
        ev["returned"] = type(out).__name__
        return ev
    ev["returned"] = "tensor"
    ev["expected_shape"], ev["got_shape"] = list(ref.shape), list(out.shape)
    ev["expected_dtype"], ev["got_dtype"] = str(expected_dtype).replace("torch.", ""), str(out.dtype).replace(
        "torch.", "")
    ev["got_device"] = out.device.type
    ev["device_ok"] = out.device.type == torch.device(device).type
    ev["shape_ok"] = tuple(out.shape) == tuple(ref.shape)
    ev["dtype_ok"] = out.dtype == expected_dtype
    source = memory.region_of(out) if out.numel() else None
    if source is not None and source.kind == "input":
        ev["returned_input"] = source.name
    # Allocated with no device= (and written by a kernel, or returned): on a GPU machine it sits on the CPU.
    no_device = [r for r in memory.regions if r.no_device_line is not None and (r.stored or r is source)]
    if no_device:
        ev["device_ok"] = False
        ev["no_device"] = {"line": no_device[0].no_device_line or None, "tensor": no_device[0].name}
    # PyTorch's contract: any stride order, dense and non-overlapping (torch.empty_like(q) keeps q's strides);
    # contiguous only where the drill's point is the layout (spec.contiguous_output).
    if ev["shape_ok"] and out.numel() and not out.is_contiguous() and (
            spec.contiguous_output or not dense_non_overlapping(out)):
        ev["layout_ok"] = False
        ev["layout_rule"] = "contiguous" if spec.contiguous_output else "dense"
        ev["got_strides"], ev["expected_strides"] = list(out.stride()), list(ref.contiguous().stride())
    if not (ev["shape_ok"] and ev["device_ok"] and ev.get("layout_ok", True)):
        return ev

    # Everything below runs on the output's device: at 2^24 elements a CPU round trip costs seconds.
    flat = out.detach().reshape(-1)
    numel = flat.numel()
    dev = flat.device
    region = memory.region_of(out) if numel else None
    unwritten = torch.zeros(numel, dtype=torch.bool, device=dev)
    if region is not None and region.sentinel_filled:
        unwritten |= is_sentinel(flat)
    duplicates = 0
    dup_at: list = []
    if interpreted and region is not None and region.kind == "alloc" and recorder_launches:
        offset = (out.data_ptr() - region.start) // region.elsize
        logical = LogicalIndex(out)  # storage offsets -> logical indices (any dense stride order)
        written = torch.zeros(numel, dtype=torch.bool)
        per_program: dict = {}
        stored = []
        for launch, program, elems, atomic in region.stored:
            idx = logical(elems - offset)
            stored.append(idx)
            if not atomic:  # atomics may meet on one element by design (split reductions)
                per_program.setdefault((launch, program), []).append(idx)
        if stored:  # one index write for every store of the call, not one per program's store
            written[torch.from_numpy(np.concatenate(stored))] = True
        per_launch: dict = {}
        for (launch, _), parts in per_program.items():
            per_launch.setdefault(launch, []).append(unique(np.concatenate(parts)))
        for parts in per_launch.values():
            allidx = np.concatenate(parts)
            counts = np.bincount(allidx)  # O(n), no sort
            duplicates += int(allidx.size - np.count_nonzero(counts))
            if duplicates:
                dup_at.append(np.flatnonzero(counts > 1))
        # Where the stores are known, "never written" means no store reached the element. A stored sentinel is a
        # value computed from memory nobody wrote (a partial row no program filled, an accumulator never zeroed):
        # wrong, not unwritten, so the value check names the tensor that was computed from it.
        read_unwritten = unwritten.cpu() & written
        if bool(read_unwritten.any()):
            ev["stored_sentinel"] = int(read_unwritten.sum())
        unwritten = (~written).to(dev)
        masked_here = torch.zeros(numel, dtype=torch.bool)
        for elems in region.masked:
            masked_here[torch.from_numpy(logical(elems - offset))] = True
        # Unwritten elements a store lane pointed at but the kernel's mask switched off, and ones no lane addressed.
        on_cpu = unwritten.cpu()
        ev["unwritten_masked"] = int((on_cpu & masked_here).sum())
        ev["unwritten_unaddressed"] = int((on_cpu & ~masked_here).sum())
        ev["stores_in_place"] = stores_in_place(out, region, memory, recorder_launches, store_spans or [])
        ev["stores"] = stores_by_tensor(memory, region, per_program)
        ev["work"] = work_per_program(per_launch, memory, recorder_launches)
        if issued:  # store lanes the biggest launch issued (masked or not): fewer than n elements cannot cover n
            ev["issued_lanes"] = max(issued.values())
    ev["duplicates"] = duplicates
    if duplicates:
        meta = next((l.get("meta") for l in recorder_launches if l.get("meta")), None) or {}
        bands = (block_along(meta, "M") or 1, block_along(meta, "N") or 1) if out.dim() == 2 else (1,) * out.dim()
        ev["duplicates_at_edge"] = on_edge(np.concatenate(dup_at), tuple(out.shape), bands)
    ev["input_bytes"] = sum(r.tensor.numel() * r.elsize for r in memory.regions if r.kind == "input")

    rtol, atol = spec.tolerance_for(str(expected_dtype).replace("torch.", ""))
    if not ev["dtype_ok"]:
        rtol, atol = max(rtol, 1e-2), max(atol, 1e-2)  # values may still be roughly right; the dtype is the news
    out64 = flat.double()
    ref64 = ref.reshape(-1).to(device=dev, dtype=torch.float64)
    if scale is not None:
        atol = atol * scale.reshape(-1).to(device=dev, dtype=torch.float64)
    ok = _close(out64, ref64, rtol, atol)
    wrong = ~ok & ~unwritten
    ev["unwritten"] = int(unwritten.sum())
    ev["wrong"] = int(wrong.sum())
    ev["numel"] = numel
    ev["tolerance"] = [rtol, atol if scale is None else "atol x error_scale"]
    bad = (~ok | unwritten).nonzero()
    if bad.numel():
        i = int(bad[0].item())
        ev["first_bad"] = {
            "index": _unravel(i, out.shape),
            "flat": i,
            "expected": float(ref64[i]),
            "got": None if bool(unwritten[i]) else float(out64[i]),
            "unwritten": bool(unwritten[i]),
            "inputs": {name: float(t.reshape(-1)[i]) for name, t in zip(arg_names, inputs_cpu)
                       if isinstance(t, torch.Tensor) and t.numel() == numel},
        }
        diff = (out64 - ref64).abs()
        finite = torch.isfinite(diff)
        # How far outside the tolerance the worst wrong element is: a few times it is the rounding of a lower
        # precision (a float16 accumulator), not a wrong formula. Infinite when a wrong element is NaN or inf.
        bound = atol + rtol * ref64.abs()
        if bool(wrong.any()):
            ratio = (diff[wrong] / bound[wrong].clamp_min(1e-300))
            ev["error_ratio"] = float("inf") if not bool(finite[wrong].all()) else round(float(ratio.max()), 2)
        diff[unwritten | ~finite] = 0
        ev["max_abs_err"] = float(diff.max())
        # The output's own scale: an error that is a large share of it is no rounding, however few tolerances away.
        size = ref64.abs()
        size = size[torch.isfinite(size)]
        ev["ref_scale"] = float(size.max()) if size.numel() else None

    # Tile map: one cell per BLOCK-sized tile of the flat output.
    block = next((l["block"] for l in recorder_launches if l.get("block")), None) or 1024
    tiles = max(1, -(-numel // block))
    pad = tiles * block - numel
    tile_unwritten = torch.nn.functional.pad(unwritten, (0, pad)).view(tiles, block).any(dim=1).cpu()
    tile_wrong = torch.nn.functional.pad(wrong, (0, pad)).view(tiles, block).any(dim=1).cpu()
    status = np.where(tile_unwritten.numpy(), ".", np.where(tile_wrong.numpy(), "x", "o"))
    ev["tiles"] = {"block": block, "status": "".join(status.tolist()), "flat": flat_tiling(out, recorder_launches)}
    if out.dim() >= 2 and not ev["tiles"]["flat"]:
        rows = row_programs(out, recorder_launches)
        if rows:  # one program per row (a row kernel): the map the report shows is one cell per row
            ev["row_map"] = row_map(unwritten.view(out.shape[0], -1), wrong.view(out.shape[0], -1))
    if out.dim() == 2:  # a tiled 2-D kernel: also the map of its BLOCK_M x BLOCK_N tiles, for the report
        meta = next((l.get("meta") for l in recorder_launches if l.get("meta")), None) or {}
        bm, bn = block_along(meta, "M"), block_along(meta, "N")
        if bm and bn:
            ev["tiles_2d"] = tile_grid(unwritten.view(out.shape), wrong.view(out.shape), bm, bn)
    return ev


def store_counts(out, memory: Memory) -> np.ndarray | None:
    """Interpreter evidence: how many store lanes of this call wrote each element of `out` (logical order, atomics
    left out); None when `out` is not a buffer the call allocated. Lanes that left `out` are not counted here (they
    are violations)."""
    region = memory.region_of(out) if out.numel() else None
    if region is None or region.kind != "alloc":
        return None
    offset = (out.data_ptr() - region.start) // region.elsize
    logical = LogicalIndex(out)
    counts = np.zeros(out.numel(), dtype=np.int64)
    for _, _, elems, atomic in region.stored:
        if not atomic:
            counts += np.bincount(logical(elems - offset), minlength=out.numel())
    return counts


def footprint_counts(out, offsets) -> np.ndarray:
    """Per logical element of `out`, how many of the storage `offsets` (from its first element) land on it: what a
    Mistake.footprint predicts, in store_counts' terms."""
    flat = np.asarray(torch.as_tensor(offsets).reshape(-1).to(torch.int64).cpu())
    return np.bincount(LogicalIndex(out)(flat), minlength=out.numel())


def on_edge(flat: np.ndarray, shape: tuple, bands: tuple) -> bool:
    """Every one of these logical indices lies in the last tile along some dim (`bands`: the tile's width per dim,
    1 where unknown): where edge programs with clamped offsets (tl.minimum(offs, M - 1)) or a last tile shifted back
    inside the tensor store elements another program stored too, the same values, which is harmless on a GPU."""
    if not flat.size or not shape:
        return False
    idx = np.unravel_index(flat, shape)
    edge = np.zeros(flat.shape, dtype=bool)
    for d, n in enumerate(shape):
        edge |= idx[d] >= n - max(1, bands[d] if d < len(bands) else 1)
    return bool(edge.all())


def flat_tiling(out, launches: list[dict]) -> bool:
    """The kernel tiles the flattened output, BLOCK elements per program: a 1-D output, or a 1-D launch of exactly
    cdiv(numel, BLOCK) programs (Inductor's xindex over a 2-D tensor). Only then is the flat tile map that kernel's."""
    if out.dim() <= 1:
        return True
    numel = out.numel()
    return any(l.get("block") and len(l.get("grid") or []) == 1 and l.get("programs") == -(-numel // l["block"])
               for l in launches)


def row_programs(out, launches: list[dict]) -> bool:
    """A launch with one program per row of the output (a row kernel: one row's reduction per program)."""
    return any(l.get("programs") == out.shape[0] and len(l.get("grid") or []) == 1 for l in launches)


def row_map(unwritten: torch.Tensor, wrong: torch.Tensor) -> dict:
    """Status of each row of a 2-D output ('.' some element unwritten, 'x' some wrong, 'o' right)."""
    status = np.where(unwritten.any(dim=1).cpu().numpy(), ".", np.where(wrong.any(dim=1).cpu().numpy(), "x", "o"))
    return {"rows": int(unwritten.shape[0]), "cols": int(unwritten.shape[1]), "status": "".join(status.tolist())}


def _lanes_and_distinct(r) -> tuple[int, int]:
    """Store lanes into region r and the distinct elements they hit, cached on the region while its stores are
    unchanged (a training call evaluates y and every gradient against the same stores: four np.unique over all of
    them cost a fifth of a normalisation backward's CPU grade)."""
    cached = getattr(r, "_lanes_distinct", None)
    if cached is not None and cached[0] == len(r.stored):
        return cached[1], cached[2]
    every = np.concatenate([e for _, _, e, _ in r.stored]) if r.stored else np.zeros(0, dtype=np.int64)
    lanes = int(every.size)
    distinct = distinct_count(every) if lanes else 0
    r._lanes_distinct = (len(r.stored), lanes, distinct)
    return lanes, distinct


def stores_by_tensor(memory: Memory, out_region, out_per_program: dict) -> list[dict]:
    """Where this call's store lanes went, one row per tensor: its name, shape and dtype, the bytes stored, the
    distinct elements; for the output also the bytes one program stored again over its own elements (a value stored,
    loaded back and stored again: a round trip through the output). The bytes proof reads these, so every figure it
    quotes is what was stored, and where."""
    rows = []
    for r in memory.regions:
        if not r.stored:
            continue
        lanes, distinct = _lanes_and_distinct(r)
        row = {"tensor": r.name, "kind": r.kind, "shape": list(r.tensor.shape),
               "dtype": str(r.tensor.dtype).replace("torch.", ""), "numel": int(r.tensor.numel()),
               "elsize": r.elsize, "bytes": lanes * r.elsize, "distinct": distinct, "output": r is out_region}
        if r is out_region:
            # across separate stores of one program (lanes of one store landing on one element, as clamped
            # offsets make them, are one write of one value)
            again = sum(sum(distinct_count(i) for i in parts) - distinct_count(np.concatenate(parts))
                        for parts in out_per_program.values() if len(parts) > 1)  # one store: nothing again
            row["restored_bytes"] = int(again) * r.elsize
        rows.append(row)
    return rows


def tile_grid(unwritten: torch.Tensor, wrong: torch.Tensor, bm: int, bn: int) -> dict:
    """Status of each BLOCK_M x BLOCK_N tile of a 2-D output, row-major: '.' some element unwritten, 'x' some
    wrong, 'o' right."""
    m, n = unwritten.shape
    tm, tn = -(-m // bm), -(-n // bn)

    def per_tile(mask):
        padded = torch.nn.functional.pad(mask.to(torch.uint8), (0, tn * bn - n, 0, tm * bm - m))
        return padded.view(tm, bm, tn, bn).amax(dim=(1, 3)).bool().cpu().numpy()

    status = np.where(per_tile(unwritten), ".", np.where(per_tile(wrong), "x", "o"))
    return {"block": [bm, bn], "shape": [m, n], "rows": tm, "cols": tn, "status": "".join(status.reshape(-1).tolist())}


def work_per_program(per_launch: dict, memory: Memory, launches: list[dict]) -> dict | None:
    """Wasted programs in the launch with the most: `repeats` stored exactly the elements another program of the
    same launch stored (a tile computed again, e.g. a 2-D grid for a 1-D problem); `idle` stored nothing anywhere
    (every lane masked off, or an early return: a grid far larger than the tiles)."""
    working: dict = {}
    for r in memory.regions:
        for launch, program, elems, _ in r.stored:
            if elems.size:
                working.setdefault(launch, set()).add(program)
    worst = None
    for i, info in enumerate(launches):
        programs = info.get("programs")
        if not programs:
            continue
        seen, repeats = set(), 0
        for idx in per_launch.get(i, []):
            if idx.size:
                key = idx.tobytes()
                repeats += key in seen
                seen.add(key)
        busy = len(working.get(i, ()))
        row = {"launch": i, "kernel": info.get("kernel"), "programs": programs, "working": busy,
               "idle": programs - busy, "repeats": repeats, "distinct": len(seen)}
        if worst is None or (row["repeats"], row["idle"]) > (worst["repeats"], worst["idle"]):
            worst = row
    return worst


def stores_in_place(out, region, memory: Memory, launches: list[dict], spans: list) -> bool:
    """1-D launches: did every store of program p point (all lanes, masked or not) inside tile p of the output?
    Then the offsets are right, and unwritten elements were masked off. Stores into other tensors are skipped."""
    if not spans:
        return False
    lo_out, el = out.data_ptr(), region.elsize
    for launch, program, lo, hi in spans:
        info = launches[launch] if 0 <= launch < len(launches) else {}
        grid, block = info.get("grid") or [], info.get("block")
        if not block or any(g != 1 for g in grid[1:]):
            return False
        owner = int(memory.owners(np.array([lo], dtype=np.uint64))[0])
        if owner >= 0 and memory.regions[owner] is not region:
            continue  # a store into a scratch buffer or an input: not the output's tiles
        tile_lo = lo_out + program * block * el
        if lo < tile_lo or hi >= tile_lo + block * el:
            return False
    return True


def guard_evidence(memory: Memory) -> list[dict]:
    hits = []
    for r in memory.regions:
        if r.buffer is None:
            continue
        g = r.guard_hits()
        if g["before"] or g["after"]:
            hits.append({"tensor": r.name, "tensor_kind": r.kind, "numel": r.tensor.numel(), **g})
    return hits


def mutated_inputs(guarded_inputs, clones, arg_names) -> list[dict]:
    out = []
    for name, now, before in zip(arg_names, guarded_inputs, clones):
        if not isinstance(now, torch.Tensor):
            continue
        same = (now == before) | (torch.isnan(now) & torch.isnan(before)) if now.is_floating_point() \
            else (now == before)
        changed = (~same).reshape(-1).nonzero()
        if changed.numel():
            out.append({"name": name, "count": int(changed.numel()), "first": int(changed[0].item())})
    return out
