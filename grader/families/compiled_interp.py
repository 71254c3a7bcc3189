"""Triton's interpreter made to behave like a compiled kernel under torch's tracing (CPU grades of compile labs).

On a GPU, `wrap_triton(kernel)` turns a launch into a higher-order op that FakeTensor tracing records without running
it. Under TRITON_INTERPRET=1, `@triton.jit` returns an InterpretedFunction and torch's wrap_triton hands it back
unwrapped (torch 2.13: `_is_interpreted_triton_kernel`), so tracing would run the interpreter on FakeTensors. Here:

- a kernel that went through wrap_triton and is launched on FakeTensors does nothing, which is what the
  higher-order op's fake rule does (the outputs were already allocated by torch ops, with the right metadata);
- a kernel launched on FakeTensors without wrap_triton fails as it does on a GPU (a FakeTensor has no data pointer);
- AOTAutograd keeps a triton_op as one opaque operator instead of decomposing it into the kernel launch (on a GPU it
  decomposes; in the interpreter the launch could not be traced), so its real tensors reach the interpreter at run
  time and every lane is still checked there.

Private torch API, version-dependent: `install()` returns what it could not patch; the caller reports that as
drill's own limitation, never as the learner's mistake.
"""
from __future__ import annotations

WRAPPED = "_drill_wrapped"


class UnwrappedLaunch(RuntimeError):
    """A Triton kernel launched on FakeTensors: torch's tracing reached a raw kernel call."""


def install() -> list[str]:
    import torch
    missing = []
    try:
        from triton.runtime.interpreter import InterpretedFunction
        from torch._subclasses.fake_tensor import is_fake
    except ImportError as e:
        return [f"interpreter or FakeTensor: {e}"]
    if getattr(InterpretedFunction.run, "_drill_patched", False):
        return []
    original_run = InterpretedFunction.run

    def run(self, *args, **kwargs):
        values = list(args) + list(kwargs.values())
        if any(isinstance(a, torch.Tensor) and is_fake(a) for a in values):
            if getattr(self, WRAPPED, False):
                return None
            raise UnwrappedLaunch(
                f"Triton kernel `{getattr(self.fn, '__name__', '?')}` was launched on FakeTensors: call it as "
                f"wrap_triton(kernel)[grid](...) inside a triton_op (a raw launch has no fake rule)")
        return original_run(self, *args, **kwargs)

    run._drill_patched = True
    InterpretedFunction.run = run

    try:
        import torch._library.triton as lt
        original_is = lt._is_interpreted_triton_kernel

        def is_interpreted(kernel):  # wrap_triton asks this of every kernel it wraps: remember the answer
            yes = original_is(kernel)
            if yes:
                setattr(kernel, WRAPPED, True)
            return yes

        lt._is_interpreted_triton_kernel = is_interpreted
    except (ImportError, AttributeError):
        missing.append("torch._library.triton._is_interpreted_triton_kernel (wrap_triton of an interpreted kernel)")
    try:
        import torch.export._trace as export_trace
        if not hasattr(export_trace, "custom_triton_ops_decomposition_disabled"):
            raise AttributeError
        export_trace.custom_triton_ops_decomposition_disabled = lambda: True
    except (ImportError, AttributeError):
        missing.append("torch.export._trace.custom_triton_ops_decomposition_disabled")
    return missing
