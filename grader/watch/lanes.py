"""Lane-exact memory checking under Triton's interpreter.

Every load and store of the interpreter ends in `InterpreterBuilder.create_masked_load/store`; atomics have their
own builder methods (`create_atomic_rmw`, `create_atomic_cas`). We wrap all four: each active lane's address must
fall inside one tensor, the one most of the access's lanes belong to. Bad lanes are recorded and masked off (an
atomic_cas, which has no mask, is pointed at a scratch slot) *before* the real access runs, so the grader's heap
stays intact and the kernel runs on to the end (the tile map then shows every program). Stored element indices and
bytes moved are recorded too; an atomic counts as a read and a write of each active lane.
"""
from __future__ import annotations


import numpy as np
import triton.language as tl
from triton.runtime.interpreter import TensorHandle

from grader.core.arrays import distinct_count, unique
from grader.core.frames import learner_line, learner_site
from grader.watch.access import describe as describe_access
from grader.watch.memory import Memory


def atomic_name(rmw_op) -> str:
    """`atomic_add`, `atomic_max`, ... from the IR's RMW op (its enum name ends in the operation: RMW_OP.FADD)."""
    name = str(getattr(rmw_op, "name", rmw_op)).rsplit(".", 1)[-1].lower()
    name = {"fadd": "add", "umax": "max", "umin": "min"}.get(name, name)
    return f"atomic_{name}"


def program_of(builder) -> int:
    """The running program's linear id (x fastest), as the launch records count programs."""
    gx, gy, gz = builder.grid_idx
    nx, ny, _ = builder.grid_dim
    return int(gx + nx * (gy + ny * gz))


def masked_off(ptrs, mask) -> int:
    """How many lanes of an access its mask switches off (0 when the mask is a broadcast scalar)."""
    m = np.asarray(mask.data, dtype=bool)
    return int(m.size - np.count_nonzero(m)) if m.shape == np.shape(ptrs.data) else 0


class LaneChecker:
    def __init__(self, learner_file: str, distinct_loads: bool = False):
        self.learner_file = learner_file
        self.distinct_loads = distinct_loads  # keep each load's addresses: only a fused byte model reads them
        self.memory: Memory | None = None
        self.active = False
        self.no_mask = False  # inside tl.load / tl.store called without mask=
        self._orig = {}
        self._reset()

    # -- bookkeeping per graded call ---------------------------------------------------------------------------
    def _reset(self):
        self.violations: list[dict] = []
        self.bytes_loaded = 0
        self.bytes_stored = 0
        self.load_addrs: dict = {}  # (launch, access site, element size) -> address arrays its lanes read
        self.bytes_atomic = 0
        self.masked_loads: dict = {}  # (line, value masked-off lanes read as) -> lanes
        self.masked_stores: dict = {}  # line -> masked-off lanes of the stores there
        self.issued: dict = {}  # launch -> store lanes issued, masked or not: what the launch could cover at most
        self.store_spans: list = []  # (launch, program, lowest address, highest address) of every store
        self.launch = -1

    def start(self, memory: Memory):
        self.memory = memory
        self._reset()
        self.active = True

    def stop(self):
        self.active = False

    # -- the hooks ---------------------------------------------------------------------------------------------
    def install(self):
        from triton.runtime import interpreter

        cls = interpreter.InterpreterBuilder
        self._orig = {"load": cls.create_masked_load, "store": cls.create_masked_store}
        checker = self
        orig_load, orig_store = self._orig["load"], self._orig["store"]

        # Signatures differ across Triton versions (3.5/3.6: cache_modifier, eviction_policy; 3.9: cache_policy).
        def create_masked_load(builder, ptrs, mask, *args, **kwargs):
            if checker.active:
                checker._note_other(ptrs, mask, args[0] if args else kwargs.get("other"))
                mask = checker._check(builder, "load", ptrs, mask)
            return orig_load(builder, ptrs, mask, *args, **kwargs)

        def create_masked_store(builder, ptrs, value, mask, *args, **kwargs):
            if checker.active:
                checker._note_masked_store(ptrs, mask)
                mask = checker._check(builder, "store", ptrs, mask)
            return orig_store(builder, ptrs, value, mask, *args, **kwargs)

        cls.create_masked_load = create_masked_load
        cls.create_masked_store = create_masked_store
        # tl.load / tl.store without mask= reach the masked builders through these (with an all-true mask): note
        # that the access has no mask at all, a fact the diagnosis names.
        for name in ("create_load", "create_store"):
            orig = getattr(cls, name, None)
            if orig is None:
                continue
            self._orig[name] = orig

            def unmasked(builder, *args, _orig=orig, **kwargs):
                checker.no_mask = True
                try:
                    return _orig(builder, *args, **kwargs)
                finally:
                    checker.no_mask = False
            setattr(cls, name, unmasked)

        orig_rmw, orig_cas = cls.create_atomic_rmw, cls.create_atomic_cas
        self._orig.update(rmw=orig_rmw, cas=orig_cas)

        def create_atomic_rmw(builder, rmw_op, ptr, val, mask, *args, **kwargs):
            name = atomic_name(rmw_op)
            if checker.active:
                mask = checker._check(builder, name, ptr, mask)
            data = np.asarray(val.data)
            if name == "atomic_xchg" and data.dtype.kind == "f":
                # The interpreter's xchg knows only integers ("Unsupported data type"); the GPU exchanges the bits
                # of any 32/64-bit value. Exchange the same bits as integers, as the hardware does.
                as_int = np.dtype(f"int{data.dtype.itemsize * 8}")
                int_ty = {2: tl.int16, 4: tl.int32, 8: tl.int64}[data.dtype.itemsize]
                old = orig_rmw(builder, rmw_op, ptr, TensorHandle(data.view(as_int), int_ty), mask, *args, **kwargs)
                return TensorHandle(np.asarray(old.data).view(data.dtype), val.dtype.scalar)
            return orig_rmw(builder, rmw_op, ptr, val, mask, *args, **kwargs)

        def create_atomic_cas(builder, ptr, cmp, val, *args, **kwargs):
            scratch = None
            if checker.active:
                ones = TensorHandle(np.ones(np.shape(ptr.data), dtype=bool), tl.int1)
                good = np.asarray(checker._check(builder, "atomic_cas", ptr, ones).data, dtype=bool)
                if not good.all():  # no mask to switch bad lanes off: give each its own harmless slot
                    scratch = np.zeros(int(good.size - good.sum()) * 8, dtype=np.uint8)
                    data = np.array(ptr.data, dtype=np.uint64, copy=True)
                    data[~good] = np.uint64(scratch.ctypes.data) + np.arange(scratch.size // 8, dtype=np.uint64) * 8
                    ptr = TensorHandle(data, ptr.dtype)
            result = orig_cas(builder, ptr, cmp, val, *args, **kwargs)
            del scratch  # kept alive through the access
            return result

        cls.create_atomic_rmw = create_atomic_rmw
        cls.create_atomic_cas = create_atomic_cas

    def _note_other(self, ptrs, mask, other):
        """What masked-off lanes of a load read as (`other=`, 0 when absent): a reduction needs its identity there."""
        off = masked_off(ptrs, mask)
        if off == 0:
            return
        if other is None:
            value = 0.0
        else:
            data = np.asarray(other.data).reshape(-1)
            value = float(data[0]) if data.size and np.all(data == data[0]) else "mixed"
        key = (learner_line(self.learner_file), value)
        self.masked_loads[key] = self.masked_loads.get(key, 0) + off

    def _note_masked_store(self, ptrs, mask):
        off = masked_off(ptrs, mask)
        if off:
            line = learner_line(self.learner_file)
            self.masked_stores[line] = self.masked_stores.get(line, 0) + off

    def _note_masked_in_bounds(self, masked: np.ndarray) -> None:
        """Store lanes the kernel's own mask switched off although they point inside a tensor: elements it chose
        not to write (a mask too strict leaves exactly these unwritten)."""
        if not masked.size:
            return
        owners = self.memory.owners(masked)
        for idx in unique(owners[owners >= 0]):
            r = self.memory.regions[int(idx)]
            hit = masked[owners == idx]
            r.masked.append(((hit - np.uint64(r.start)) // np.uint64(r.elsize)).astype(np.int64))

    def _check(self, builder, kind, ptrs, mask):
        from triton.runtime.interpreter import TensorHandle, _get_np_dtype

        addrs = np.asarray(ptrs.data).astype(np.uint64, copy=False)
        m = np.asarray(mask.data, dtype=bool)
        if m.shape != addrs.shape:
            m = np.broadcast_to(m, addrs.shape)
        elsize = np.dtype(_get_np_dtype(ptrs.get_element_ty())).itemsize
        if kind != "load" and addrs.size:  # where every lane points, masked or not: the offsets' own evidence
            self.store_spans.append((self.launch, program_of(builder), int(addrs.min()), int(addrs.max())))
            self.issued[self.launch] = self.issued.get(self.launch, 0) + int(addrs.size)
            self._note_masked_in_bounds(addrs[~m])
        active = addrs[m]
        if active.size == 0:
            return mask
        owner = self.memory.sole_owner(active)  # every lane in one tensor (the usual case): no search per lane
        if owner is None:
            owners = self.memory.owners(active)
            inside = owners[owners >= 0]
            owner = int(np.bincount(inside).argmax()) if inside.size else -1
            good = (owners == owner) & (owners >= 0)  # a lane inside no tensor is never good
        else:
            good = np.ones(active.shape, dtype=bool)
        nbytes = int(active.size) * elsize
        atomic = kind.startswith("atomic")
        if kind == "load" or atomic:
            self.bytes_loaded += nbytes
        if atomic:
            self.bytes_atomic += nbytes
        if kind == "load" and self.distinct_loads:
            key = (self.launch, learner_site(self.learner_file), elsize)
            kept = self.load_addrs.setdefault(key, [])
            kept.append(active.copy())
            if len(kept) > 256:  # keep memory bounded on long loops: fold what this site read so far
                self.load_addrs[key] = [unique(np.concatenate(kept))]
        if kind != "load":
            self.bytes_stored += nbytes
        if owner >= 0 and kind != "load":
            r = self.memory.regions[owner]
            elems = ((active[good] - np.uint64(r.start)) // np.uint64(r.elsize)).astype(np.int64)
            # Atomics may hit one element from many programs on purpose (split reductions): not duplicates.
            r.stored.append((self.launch, program_of(builder), elems, atomic))
            line = learner_line(self.learner_file)
            r.store_lines[line] = r.store_lines.get(line, 0) + int(elems.size)
        if good.all():
            return mask
        bad_lanes = np.zeros(m.shape, dtype=bool)
        bad_lanes[m] = ~good
        self._record(builder, kind, active[~good], owner, (addrs, m, bad_lanes, elsize))
        new_mask = m.copy()
        new_mask[m] = good
        return TensorHandle(new_mask, mask.dtype)

    def bytes_loaded_distinct(self) -> int | None:
        """Bytes the loads read counting each address once per launch and access site (atomics as issued): what
        HBM serves. Lanes that read one address (a warp's broadcast, tail lanes clamped with tl.where onto element
        0) are one read; the same data read again at another line (a second pass) is read again. None when the
        addresses were not kept (no byte model asks)."""
        if not self.distinct_loads:
            return None
        distinct = sum(distinct_count(np.concatenate(arrs)) * key[2] for key, arrs in self.load_addrs.items())
        return distinct + self.bytes_atomic

    def _record(self, builder, kind, bad: np.ndarray, owner: int, tile=None):
        regions = self.memory.regions
        if owner >= 0:
            r = regions[owner]
            elems = (bad.astype(np.int64) - r.start) // r.elsize
            side = "after" if int(bad.min()) >= r.end else ("before" if int(bad.max()) < r.start else "mixed")
            name = r.name
        else:  # no lane inside any tensor: attribute to the nearest one
            i, side, first = self.memory.nearest(int(bad.min()))
            r = regions[i]
            elems = (bad.astype(np.int64) - r.start) // r.elsize
            name = r.name
        gx, gy, gz = builder.grid_idx
        self.violations.append({
            "kind": kind,
            "tensor": name,
            "tensor_kind": r.kind,
            "numel": r.tensor.numel(),
            "side": side,
            "lanes": int(bad.size),
            "first_elem": int(elems.min()),
            "last_elem": int(elems.max()),
            "program": program_of(builder),
            "inside_no_tensor": owner < 0,
            "program_idx": [int(gx), int(gy), int(gz)],
            "line": learner_line(self.learner_file),
            "launch": self.launch,
            "unmasked": self.no_mask,  # the access has no mask= at all
            "access": describe_access(*tile, r) if tile is not None else None,  # per tile axis: dim, index reached
        })
