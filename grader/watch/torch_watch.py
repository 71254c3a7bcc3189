"""Watch the learner's wrapper: guard its allocations and record any torch op that computes values.

A `TorchFunctionMode` sees factory functions (`torch.empty`) as well as tensor methods. Allocations are served
from guarded, sentinel-filled buffers; value-computing torch calls are recorded with the learner's line, so a
wrapper that returns `x + y` (or adds a `torch.relu` after the kernel) is named for what it is.
"""
from __future__ import annotations


import torch
from torch.overrides import TorchFunctionMode

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
        result = func(*args, **kwargs)
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
        if self.record_ops and name not in HARMLESS:
            self.ops.append({"op": f"torch.{name}", "line": learner_line(self.learner_file)})
        return result

    def memory_device(self) -> str:
        return torch.device(self.memory.device).type

    def _alloc(self, func, name, args, kwargs):
        result = func(*args, **kwargs)
        if not isinstance(result, torch.Tensor) or result.device.type != torch.device(self.memory.device).type:
            return result
        # A dense non-contiguous allocation (memory_format=torch.channels_last, empty_like of a transposed view) is
        # guarded with its own strides: left unregistered, every store into it read as out of bounds.
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
