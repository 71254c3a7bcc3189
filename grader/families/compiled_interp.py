"""Triton's interpreter made to behave like a compiled kernel under torch's tracing (CPU grades of compile labs).

On a GPU, `wrap_triton(kernel)` turns a launch into a higher-order op that FakeTensor tracing records without running
it. Under TRITON_INTERPRET=1, `@triton.jit` returns an InterpretedFunction and torch's wrap_triton hands it back
unwrapped (torch 2.13) or refuses it (torch 2.11), so tracing would run the interpreter on FakeTensors. Here:

- torch's wrap_triton, as the learner's module and torch.library see it, accepts an interpreted kernel (torch 2.11
  refuses one) and marks it;
- a kernel that went through wrap_triton and is launched on FakeTensors does nothing, which is what the
  higher-order op's fake rule does (the outputs were already allocated by torch ops, with the right metadata);
- a kernel launched on FakeTensors without wrap_triton fails as it does on a GPU (a FakeTensor has no data pointer);
- AOTAutograd keeps a triton_op as one opaque operator instead of decomposing it into the kernel launch (on a GPU it
  decomposes; in the interpreter the launch could not be traced), so its real tensors reach the interpreter at run
  time and every lane is still checked there.

On a GPU the same raw launch is not refused: torch 2.11 warns ("Accessing the data pointer of FakeTensor is
deprecated") and launches the kernel on address 0, and the illegal memory access poisons the CUDA context for the rest
of the grade. `guard_compiled()` makes a compiled kernel refuse FakeTensors the same way, before anything launches.

Private torch API, version-dependent: `install()` returns what it could not patch; the caller reports that as
drill's own limitation, never as the learner's mistake.
"""
from __future__ import annotations

from grader.core import catalog

WRAPPED = "_drill_wrapped"


class UnwrappedLaunch(RuntimeError):
    """A Triton kernel launched on FakeTensors: torch's tracing reached a raw kernel call."""


def install(module=None) -> list[str]:
    import torch
    try:
        from triton.runtime.interpreter import InterpretedFunction
        from torch._subclasses.fake_tensor import is_fake
    except ImportError as e:
        return [f"interpreter or FakeTensor: {e}"]
    missing = []
    if not getattr(InterpretedFunction.run, "_drill_patched", False):
        patch_run(InterpretedFunction, is_fake)

    # wrap_triton: torch 2.13 hands an interpreted kernel back as it is, torch 2.11 refuses it ("wrap_triton only
    # works on functions annotated with triton.jit"). Both: the learner's wrap_triton marks it and hands it back.
    import torch.library as library
    original_wrap = getattr(library, "wrap_triton", None)
    original_wrap = getattr(original_wrap, "_drill_original", original_wrap)
    if original_wrap is None:
        missing.append("torch.library.wrap_triton")
    else:
        def wrap_triton(kernel, /):
            inner = kernel
            while not isinstance(inner, InterpretedFunction) and hasattr(inner, "fn") and inner is not inner.fn:
                inner = inner.fn  # @triton.autotune / @triton.heuristics around an interpreted kernel
            if isinstance(inner, InterpretedFunction):
                setattr(inner, WRAPPED, True)
                return kernel
            return original_wrap(kernel)

        wrap_triton._drill_original = original_wrap
        library.wrap_triton = wrap_triton
        if module is not None:  # `from torch.library import wrap_triton` bound the original at import
            for name, value in list(vars(module).items()):
                if value is original_wrap:
                    setattr(module, name, wrap_triton)
    try:
        import torch.export._trace as export_trace
        if not hasattr(export_trace, "custom_triton_ops_decomposition_disabled"):
            raise AttributeError
        export_trace.custom_triton_ops_decomposition_disabled = lambda: True
    except (ImportError, AttributeError):
        missing.append("torch.export._trace.custom_triton_ops_decomposition_disabled")
    return missing


def guard_compiled() -> list[str]:
    """GPU grades: a compiled Triton kernel launched on FakeTensors raises UnwrappedLaunch instead of launching."""
    try:
        from triton.runtime.jit import JITFunction
        from torch._subclasses.fake_tensor import is_fake
    except ImportError as e:
        return [f"JITFunction or FakeTensor: {e}"]
    if not getattr(JITFunction.run, "_drill_patched", False):
        patch_run(JITFunction, is_fake)
    return []


def patch_run(InterpretedFunction, is_fake) -> None:
    """Make `InterpretedFunction.run` (or `JITFunction.run`) refuse FakeTensor arguments unless wrap_triton marked it."""
    import torch
    original_run = InterpretedFunction.run

    def run(self, *args, **kwargs):
        values = list(args) + list(kwargs.values())
        if any(isinstance(a, torch.Tensor) and is_fake(a) for a in values):
            if getattr(self, WRAPPED, False):
                return None
            raise UnwrappedLaunch(catalog.text("check_details.unwrapped_launch", "en",
                                               kernel=getattr(self.fn, "__name__", "?")))
        return original_run(self, *args, **kwargs)

    run._drill_patched = True
    InterpretedFunction.run = run
