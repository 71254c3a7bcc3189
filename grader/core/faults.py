"""Whose fault is an exception: the learner's code, or drill's own machinery?

An exception is drill's when it was raised inside drill's own code (grader/, drills/) and is not one of the
exceptions drill raises on purpose to stop a learner's launch (those carry `learner_facing = True`); or when
Triton's interpreter shows up inside Triton's compiler front end (grader.watch.compile_check runs the front end
with the interpreter swapped out: an InterpreterError there is our swap failing, never the learner's kernel).
Everything else — raised in the learner's file, in a module beside it, in torch or Triton called from it — is the
learner's, and keeps its line.
"""
from __future__ import annotations

import os
import traceback
from pathlib import Path

from grader.core import catalog

_ROOT = Path(__file__).resolve().parents[2]
DRILL_DIRS = tuple(str(_ROOT / d) + os.sep for d in ("grader", "drills"))

REPORT = "report this to drill's maintainers with the file graded, the command, and this `internal` block"


def chain(exc: BaseException) -> list[BaseException]:
    out, seen, e = [], set(), exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        out.append(e)
        e = e.__cause__ or e.__context__
    return out


def _innermost_frame(exc: BaseException):
    frames = list(traceback.walk_tb(exc.__traceback__))
    return frames[-1] if frames else None


def is_drills_own(filename: str, learner_file: str | None = None) -> bool:
    path = os.path.realpath(filename)
    return path != (learner_file and os.path.realpath(learner_file)) and path.startswith(DRILL_DIRS)


CUDA_FAULTS = ("illegal memory access", "misaligned address", "an illegal instruction", "unspecified launch failure")


def is_cuda_fault(exc: BaseException) -> bool:
    """A CUDA fault (an illegal address, say) is reported at whatever call synchronises next, often in drill's own
    frames; it was caused by a kernel writing through a bad pointer, and only the learner's kernels do that."""
    return any("CUDA error" in str(e) and any(f in str(e) for f in CUDA_FAULTS) for e in chain(exc))


def drill_fault(exc: BaseException, learner_file: str | None = None) -> dict | None:
    """None when the exception is the learner's; else what an internal error shows and asks to report."""
    if is_cuda_fault(exc):
        return None
    for e in chain(exc):
        if isinstance(getattr(e, "fault", None), dict):  # InternalError: drill already described it
            return e.fault
        if getattr(e, "learner_facing", False):
            return None
    # the deepest exception raised in drill's own code (an InterpreterError wraps the one that matters)
    for e in reversed(chain(exc)):
        if type(e).__name__ == "InterpreterError":  # Triton's wrapper (or ours, interp_compat) of the real one
            continue
        frame = _innermost_frame(e)
        if frame is not None and is_drills_own(frame[0].f_code.co_filename, learner_file):
            root = e
            break
    else:
        return None
    return describe_fault(root)


def describe_fault(e: BaseException, stage: str | None = None) -> dict:
    frames = traceback.extract_tb(e.__traceback__)[-6:]
    where = frames[-1] if frames else None
    return {
        "type": type(e).__name__,
        "message": (str(e).strip() or type(e).__name__)[:600],
        "where": f"{_short(where.filename)}:{where.lineno} in {where.name}" if where else None,
        "stage": stage,
        "traceback": [f"{_short(f.filename)}:{f.lineno} in {f.name}" for f in frames],
        "report": REPORT,
    }


def _short(filename: str) -> str:
    path = os.path.realpath(filename)
    root = str(_ROOT) + os.sep
    return path[len(root):] if path.startswith(root) else os.path.basename(path)


class InternalError(Exception):
    """drill's own machinery failed on this submission (`fault` is describe_fault's dict): no verdict on it."""

    def __init__(self, fault: dict):
        super().__init__(fault.get("message") or "internal error")
        self.fault = fault


def cpu_limitation(exc: BaseException) -> str | None:
    """The reason a call cannot be checked on CPU, when it stopped on something Triton's interpreter does not run
    (bf16 atomics, a libdevice function we do not emulate, inline asm, extern_elementwise) — a GPU would run it."""
    for e in chain(exc):
        if type(e).__name__ in ("NotCheckedOnCPU", "LibdeviceUnsupported"):
            return str(e).strip() or type(e).__name__
        if isinstance(e, NotImplementedError):
            frame = _innermost_frame(e)
            name = frame[0].f_code.co_filename if frame else ""
            if name.replace(os.sep, "/").endswith("triton/runtime/interpreter.py"):
                return catalog.text("check_details.interpreter_says", "en", why=str(e).strip() or type(e).__name__)
    return None
