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
