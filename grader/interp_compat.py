"""Small fixes to Triton's interpreter that make the same learner code run on Triton 3.6 and 3.9.

Triton 3.6's interpreter gives its tensors `__index__ = int(self.handle.data)`; a scalar's data is a 1-element
1-D array, which NumPy >= 2.4 refuses ("only 0-dimensional arrays can be converted to Python scalars"). So
`for r in range(0, N, RBLOCK)` with a runtime N fails on 3.6 only. Triton 3.9 uses `.squeeze()`; we do the same.
"""
from __future__ import annotations


def install() -> bool:
    """Patch the interpreter if it has the 3.6 `__index__`; returns True when a patch was applied."""
    import inspect

    from triton.runtime import interpreter

    orig = getattr(interpreter, "_patch_lang_tensor", None)
    if orig is None or "data.squeeze()" in inspect.getsource(orig):
        return False

    def _patch_lang_tensor(tensor, scope, *args, **kwargs):
        result = orig(tensor, scope, *args, **kwargs)
        # The scope restores in reverse order, so this later set_attr is undone first: the class ends clean.
        scope.set_attr(tensor, "__index__", lambda self: int(self.handle.data.reshape(-1)[0]))
        return result

    interpreter._patch_lang_tensor = _patch_lang_tensor
    return True


class InterpreterUnsupported(NotImplementedError):
    """Kernel code the interpreter cannot compute correctly; the message names what to write instead."""


BF16_MESSAGE = ("bfloat16 arithmetic does not run in Triton's interpreter (it would compute on the raw 16-bit "
                "patterns): convert after the load with .to(tl.float32), compute in float32, and convert back "
                "with .to(out_ptr.dtype.element_ty) in the store — what a GPU kernel should do anyway")


def install_bf16_guard() -> None:
    """Make bfloat16 arithmetic under the interpreter stop with a clear message instead of computing garbage.

    Both Triton 3.6 and 3.9 keep bfloat16 as uint16 in numpy and apply numpy ops to those bits: x * x for
    x = 1.5 gives 2.5e-29. Casts, loads, stores and tl.where are unaffected."""
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter

    cls = interpreter.InterpreterBuilder

    def is_bf16(h) -> bool:  # the cheap numpy test first: this runs on every operation of every program
        return getattr(getattr(h, "data", None), "dtype", None) == np.uint16 \
            and getattr(getattr(h, "dtype", None), "scalar", None) == tl.bfloat16

    orig_binary, orig_unary = cls.binary_op, cls.unary_op

    def binary_op(self, lhs, rhs, op, *args, **kwargs):
        if is_bf16(lhs) or is_bf16(rhs):
            raise InterpreterUnsupported(BF16_MESSAGE)
        return orig_binary(self, lhs, rhs, op, *args, **kwargs)

    def unary_op(self, arg, op, *args, **kwargs):
        if is_bf16(arg):
            raise InterpreterUnsupported(BF16_MESSAGE)
        return orig_unary(self, arg, op, *args, **kwargs)

    cls.binary_op, cls.unary_op = binary_op, unary_op
