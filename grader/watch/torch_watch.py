"""Watch the learner's wrapper: guard its allocations and record any torch op that computes with the data.

A `TorchFunctionMode` sees factory functions (`torch.empty`) as well as tensor methods. Allocations are served
from guarded, sentinel-filled buffers; value-computing torch calls are recorded with the learner's line, so a
wrapper that returns `x + y` (or adds a `torch.relu` after the kernel) is named for what it is.

A torch fallback is torch computing *with the data*: the graded inputs (and their views), what a Triton kernel was
handed (it may have written it: the output), and anything computed from those. Torch building launch metadata
from shapes and strides — sglang's `torch.arange(B) * stride` offset table, `torch.tensor(seq_lens).cumsum(0)` —
touches no data and is not recorded, nor is a predicate that answers a Python bool (Liger's backward asks
`torch.equal(grad_output, 1.0)` to skip a Triton multiply). `mark_data` tags a tensor as data; a view of data is data.
"""
from __future__ import annotations


import torch
from torch.overrides import TorchFunctionMode

from grader.core import catalog
from grader.core.frames import learner_line
from grader.watch.memory import Memory, span_elems

EMPTY = {"empty", "empty_like", "new_empty", "empty_strided"}
FILLED = {"zeros", "zeros_like", "new_zeros", "ones", "ones_like", "new_ones", "full", "full_like", "new_full"}
# Factories that place a tensor on the default device (the CPU) unless told otherwise: `torch.empty(n)` works on a
# CPU grade and puts the output on the CPU on a GPU machine. (*_like and new_* follow their tensor.)
NEEDS_DEVICE = {"empty", "empty_strided", "zeros", "ones", "full"}
# Metadata, views and moves: not computing values.
HARMLESS = {
    "__get__", "__set__", "numel", "size", "dim", "ndimension", "stride", "data_ptr", "is_contiguous",
    "contiguous", "element_size", "storage_offset", "untyped_storage", "__len__", "__format__", "__repr__",
    "__str__", "view", "reshape", "flatten", "view_as", "reshape_as", "squeeze", "unsqueeze", "expand",
    "expand_as", "__getitem__", "is_floating_point", "is_complex", "get_device", "__index__", "__int__",
    "__hash__", "requires_grad_", "detach", "nelement",
    "cpu", "cuda", "to", "__bool__", "item", "tolist", "is_pinned", "__iter__", "__reduce_ex__",
    "__deepcopy__", "t", "permute", "transpose", "as_strided", "unbind", "split", "chunk", "narrow",
    "device",  # torch.device("cuda") goes through the mode too (a persistent kernel asking for the SM count)
}


DATA_TAG = "_drill_data"


def mark_data(value) -> None:
    """Tag every tensor in `value` (a tensor, or a list/tuple/dict of them) as the grade's data."""
    for leaf in _tensors(value):
        try:
            setattr(leaf, DATA_TAG, True)
        except (AttributeError, RuntimeError):  # a tensor subclass that refuses attributes: not tracked
            pass


def is_data(t) -> bool:
    return getattr(t, DATA_TAG, False) is True


def _tensors(value):
    from torch.utils._pytree import tree_flatten

    leaves, _ = tree_flatten(value)
    out = []
    for leaf in leaves:
        if isinstance(leaf, torch.Tensor):
            out.append(leaf)
        elif isinstance(getattr(leaf, "base", None), torch.Tensor):  # a TensorDescriptor's tensor
            out.append(leaf.base)
    return out


class TorchWatch(TorchFunctionMode):
    def __init__(self, memory: Memory, recorder, learner_file: str, record_ops: bool = True):
        super().__init__()
        self.memory = memory
        self.record_ops = record_ops  # False while the learner's module is imported: precomputing is fine there
        self.recorder = recorder
        self.learner_file = learner_file
        self.ops: list[dict] = []
        self.allocs = 0


    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.recorder.depth > 0:
            return func(*args, **kwargs)
        name = getattr(func, "__name__", str(func))
        if name in EMPTY or name in FILLED:
            return self._alloc(func, name, args, kwargs)
        result = learners(func, args, kwargs)
        if isinstance(result, bool):  # a predicate (torch.equal, allclose): it steers the code, computes no output
            return result
        with_data = any(is_data(t) for t in _tensors((args, kwargs)))
        if with_data:  # computed from (or a view of) the data: data too
            mark_data(result)
        if isinstance(result, torch.Tensor) and result.numel() and result.device.type == self.memory_device():
            # Every tensor the learner's code makes is a place its kernels may legally touch.
            line = learner_line(self.learner_file)
            self.memory.add(result, f"torch.{name} result" + (f" at line {line}" if line else ""), "other")
        if name in ("to", "cpu", "cuda") and isinstance(result, torch.Tensor) and args \
                and isinstance(args[0], torch.Tensor) and result.dtype == args[0].dtype:
            moved = name == "cuda" or any(isinstance(a, (torch.device, str)) for a in args[1:]) or \
                kwargs.get("device") is not None or any(isinstance(a, torch.Tensor) for a in args[1:])
            region = self.memory.region_of(args[0]) if moved and args[0].numel() else None
            if region is not None:  # `torch.empty(n).to(x.device)` lands on the right device after all
                region.no_device_line = None
            return result
        if self.record_ops and name not in HARMLESS and with_data:
            self.ops.append({"op": f"torch.{name}", "line": learner_line(self.learner_file)})
        return result

    def memory_device(self) -> str:
        return torch.device(self.memory.device).type

    def _alloc(self, func, name, args, kwargs):
        if torch.device(kwargs.get("device") or self.memory.device).type == self.memory_device():
            check_size(func, name, args, kwargs, self.memory.device, learner_line(self.learner_file))
        result = learners(func, args, kwargs)
        if not isinstance(result, torch.Tensor) or result.device.type != torch.device(self.memory.device).type:
            return result
        # A dense non-contiguous allocation (memory_format=torch.channels_last, empty_like of a transposed view: it
        # keeps its input's strides, preserve_format) is guarded with its own strides, as made.
        stride = None if result.is_contiguous() else tuple(result.stride())
        if stride is not None and (span_elems(result.shape, stride) != result.numel()
                                   or any(st <= 0 for st, n in zip(stride, result.shape) if n > 1)):
            return result  # gaps or overlaps: not a plain allocation
        line = learner_line(self.learner_file)
        self.allocs += 1
        label = f"torch.{name}" + (f" at line {line}" if line else "")
        guarded = self.memory.guarded(tuple(result.shape), result.dtype, label, "alloc",
                                      fill_value=None if name in EMPTY else 0, stride=stride)
        region = self.memory.region_of(guarded) if name in NEEDS_DEVICE and kwargs.get("device") is None else None
        if region is not None:
            region.no_device_line = line or 0
        if name not in EMPTY:  # keep zeros/ones/full semantics; only empty memory gets the sentinel
            guarded.copy_(result)
        return guarded


def learners(func, args, kwargs):
    """Call the torch function the learner's code called: what it raises is the learner's (grader.core.faults), even
    though this frame is drill's."""
    try:
        return func(*args, **kwargs)
    except Exception as e:
        try:
            e.learner_facing = True
        except AttributeError:
            pass
        raise


class ImpossibleAllocation(MemoryError):
    """An allocation larger than the grading device's memory: refused at once, naming the line (a 40 TB
    torch.empty would otherwise be a CUDA out-of-memory error, or on the CPU an overcommitted buffer that the
    sentinel fill pages in until the grade times out)."""

    learner_facing = True


def check_size(func, name, args, kwargs, device: str, line: int | None) -> None:
    try:  # the same call on the meta device: the shape and dtype it asks for, no memory
        meta = func(*args, **{**kwargs, "device": "meta"})
    except Exception:  # noqa: BLE001 - the real call will say what is wrong with it
        return
    if not isinstance(meta, torch.Tensor):
        return
    from grader.watch.memory import span_elems
    nbytes = span_elems(meta.shape, meta.stride()) * meta.element_size()
    capacity = device_capacity(device)
    if capacity is None or nbytes <= capacity:
        return
    words = "check_details.alloc_"  # each field that is a phrase is a catalog text too: the report translates it
    on = "cpu" if torch.device(device).type == "cpu" else "gpu"
    raise ImpossibleAllocation(catalog.text(
        f"{words}impossible", "en",
        call=catalog.text(f"{words}call_at_line", "en", name=name, line=line) if line else
        catalog.text(f"{words}call", "en", name=name),
        asked=human_bytes(nbytes), shape=" x ".join(map(str, meta.shape)) or catalog.text(f"{words}scalar", "en"),
        dtype=str(meta.dtype).replace("torch.", ""),
        limit=catalog.text(f"{words}on_{on}", "en", capacity=human_bytes(capacity))))


_CAPACITY: dict = {}


def device_capacity(device: str) -> int | None:
    """Bytes the grading device can hold: CPU, the memory available now (MemAvailable: an allocation beyond it is
    overcommitted and thrashes as it is filled); CUDA, the GPU's total memory."""
    kind = torch.device(device).type
    if kind in _CAPACITY:
        return _CAPACITY[kind]
    value = None
    try:
        if kind == "cpu":
            with open("/proc/meminfo", encoding="ascii") as f:
                for ln in f:
                    if ln.startswith("MemAvailable:"):
                        value = int(ln.split()[1]) * 1024
                        break
            if value is None:
                import os
                value = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        elif kind == "cuda":
            value = int(torch.cuda.mem_get_info()[1])
    except (OSError, ValueError, RuntimeError, AttributeError):
        value = None
    _CAPACITY[kind] = value
    return value


def human_bytes(n: int) -> str:
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"
