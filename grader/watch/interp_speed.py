"""Speed for the interpreter run, with the same evidence: work whose result nobody reads is not done.

- Triton's interpreter runs every integer `+ - *` twice when `sanitize_overflow` is on (the default): once as
  written and once in int64, compared against the int32 range, then handed to `device_assert` — which returns
  without looking unless the builder's options say `debug=True`, and the interpreter's never do. That discarded
  check was ~30 % of a 1-D elementwise drill's grade. It is switched off only while `debug` is off, and only when the installed
  Triton's `device_assert` is the no-op described (checked in its source), so a Triton that does assert keeps it.
- torch runs single-threaded in the interpreter run: the kernel is single-threaded Python, torch's own work there
  is on tensors of at most ~1e5 elements, and on a shared 2-core machine a second intra-op thread spinning made a
  1-D elementwise grade's calls 2x slower (measured: 4.4 s vs 1.8 s under load).
- Triton's front end rebuilds the same type objects for every operation of every program: a `block_type` per
  result (its shape unwrapped and validated again), and `_get_np_dtype` builds a 19-entry dict on each call. The
  interpreter's own `get_block_ty`, `block_type.with_element_ty` and `_get_np_dtype` are memoised: types are
  immutable values (compared by element type and shape), so handing out one object per (element type, shape) gives
  every operation the same types, shapes and numpy dtypes as before. `block_type.__init__` and `tensor.__init__`
  reuse, for a plain-int shape, what Triton's own __init__ built from it the first time. Only plain-int shapes are
  cached; anything else goes to Triton's own code.
- Every binary operation, load and store broadcasts its operands (`broadcast_impl_value`); for two blocks of one
  shape, or two scalars, Triton returns them unchanged, after comparing the shapes through Triton tuples (each
  comparison builds a tuple and its type). The interpreter's semantic object returns them at once in those two cases
  and calls Triton's own code for every other.
"""
from __future__ import annotations

import dataclasses
import inspect


def install() -> dict:
    """Apply them all; returns what was applied (for the tests and the result's phases)."""
    import torch

    torch.set_num_threads(1)
    return {"torch_threads": 1, **interpreter_speedups()}


def interpreter_speedups() -> dict:
    """The interpreter's own speedups, without touching torch's threads: for a process that runs Triton's interpreter
    but also times torch on the CPU (`drill inductor`'s CPU capture runs Inductor's generated Triton under it)."""
    return {"overflow_check_skipped": skip_discarded_overflow_check(), "type_caches": cache_interpreter_types(),
            "type_inits": faster_type_inits(), "same_shape_broadcast": same_shape_broadcast()}


def skip_discarded_overflow_check() -> bool:
    try:
        from triton.language.semantic import TritonSemantic
        from triton.runtime import interpreter
    except ImportError:
        return False
    builder = getattr(interpreter, "interpreter_builder", None)
    options = getattr(builder, "options", None)
    if options is None or getattr(options, "debug", True) or not getattr(options, "sanitize_overflow", False):
        return False
    try:
        source = inspect.getsource(TritonSemantic.device_assert)
    except (AttributeError, OSError, TypeError):
        return False
    if "if not self.builder.options.debug" not in source:
        return False
    builder.options = dataclasses.replace(options, sanitize_overflow=False)
    return True


def cache_interpreter_types() -> bool:
    """Memoise the interpreter's type constructors (the module docstring says why it changes nothing). Idempotent:
    a fork of the warm worker calls it again and finds it done. False when this Triton lacks one of them."""
    try:
        import triton.language as tl
        from triton.runtime import interpreter
    except ImportError:
        return False
    builder_cls = getattr(interpreter, "InterpreterBuilder", None)
    block_type = getattr(tl, "block_type", None)
    np_dtype = getattr(interpreter, "_get_np_dtype", None)
    if builder_cls is None or block_type is None or np_dtype is None \
            or not all(callable(getattr(c, n, None)) for c, n in ((builder_cls, "get_block_ty"),
                                                                   (block_type, "with_element_ty"))):
        return False
    if getattr(np_dtype, "_drill_cached", False):
        return True
    types: dict = {}

    def cached_block_type(element_ty, shape):
        """One block_type per (element type, plain-int shape); None when the shape is not plain ints."""
        try:
            key = (element_ty, tuple(shape))
        except TypeError:
            return None
        if not all(type(d) is int for d in key[1]):  # noqa: E721 - constexpr / numpy ints: Triton's own path
            return None
        try:
            return types[key]
        except KeyError:
            ty = types[key] = block_type(element_ty, list(key[1]))
            return ty
        except TypeError:  # an unhashable element type: not cached
            return None

    orig_get_block_ty = builder_cls.get_block_ty
    orig_with_element_ty = block_type.with_element_ty

    def get_block_ty(self, dtype, shape):
        ty = cached_block_type(dtype, shape)
        return orig_get_block_ty(self, dtype, shape) if ty is None else ty

    def with_element_ty(self, scalar_ty):
        ty = cached_block_type(scalar_ty, self.shape)
        return orig_with_element_ty(self, scalar_ty) if ty is None else ty

    np_dtypes: dict = {}

    def get_np_dtype(tt_dtype):
        try:
            return np_dtypes[tt_dtype]
        except KeyError:
            out = np_dtypes[tt_dtype] = np_dtype(tt_dtype)
            return out
        except TypeError:  # a block_type (unhashable): Triton's own lookup
            return np_dtype(tt_dtype)

    get_np_dtype._drill_cached = True
    builder_cls.get_block_ty = get_block_ty
    block_type.with_element_ty = with_element_ty
    interpreter._get_np_dtype = get_np_dtype
    return True


def _plain(v):
    """A type attribute as comparable data: Triton's tuples by their values and type name, constexprs by value."""
    values = getattr(v, "values", None)
    if isinstance(values, list):
        return ("tuple", type(v).__name__, [_plain(x) for x in values], getattr(getattr(v, "type", None), "name", None))
    if type(v).__name__ == "constexpr":
        return ("constexpr", v.value)
    return v


def _same(a, b) -> bool:
    """Two Triton objects with the same attributes (handles and types compared by identity)."""
    va, vb = vars(a), vars(b)
    return type(a) is type(b) and set(va) == set(vb) and all(
        va[k] is vb[k] if k in ("handle", "type") else
        (type(va[k]) is type(vb[k]) and _plain(va[k]) == _plain(vb[k])) for k in va)


def faster_type_inits() -> bool:
    """`block_type.__init__` and `tensor.__init__` for plain-int shapes without re-unwrapping and re-validating
    the shape at every operation: a shape is validated once, by Triton's own __init__, and what it built from the
    shape (the numel, the shape tuple's type, a tensor's constexpr shape) is reused; each object still gets its own
    shape tuple. Installed only if, on this Triton, both give objects identical to what the originals build
    (checked here on samples); any other shape goes to the originals."""
    try:
        import triton.language as tl
    except ImportError:
        return False
    block_type, tensor, tuple_cls = tl.block_type, tl.tensor, getattr(tl, "tuple", None)
    if getattr(block_type.__init__, "_drill_fast", False):
        return True
    if tuple_cls is None:
        return False
    orig_block_init, orig_tensor_init = block_type.__init__, tensor.__init__
    shapes: dict = {}  # plain-int shape -> (numel, the shape tuple's type or None, the shape as the name shows it)

    def block_init(self, element_ty, shape):
        if type(shape) in (list, tuple) and shape and all(type(d) is int for d in shape):  # noqa: E721
            key = tuple(shape)
            known = shapes.get(key)
            if known is None:
                orig_block_init(self, element_ty, shape)
                own = self.shape
                shapes[key] = (self.numel, own.type if isinstance(own, tuple_cls) else None, str(own))
                return
            numel, shape_type, shown = known
            self.element_ty = element_ty
            self.shape = key if shape_type is None else tuple_cls(list(key), shape_type)
            self.numel = numel
            self.name = f"<{shown}, {element_ty}>"
            return
        orig_block_init(self, element_ty, shape)

    def tensor_init(self, handle, type):
        if not isinstance(type, block_type):
            return orig_tensor_init(self, handle, type)
        cached = type.__dict__.get("_drill_tensor_shape")
        if cached is None:
            orig_tensor_init(self, handle, type)
            type._drill_tensor_shape = (self.numel, list(self.shape.values), self.shape.type)
            return
        numel, values, shape_type = cached
        self.handle = handle
        self.numel = numel
        self.type = type
        self.dtype = type.element_ty
        self.shape = tuple_cls(values, shape_type)

    # Samples built both ways must agree on this Triton, else the originals stay.
    try:
        samples = []
        for shape in ([4], [2, 8], (1, 16)):
            a, b, c = (block_type.__new__(block_type) for _ in range(3))
            orig_block_init(a, tl.float32, list(shape))
            block_init(b, tl.float32, list(shape))  # the first of a shape: through the original
            block_init(c, tl.float16, list(shape))  # then from the cache
            d = block_type.__new__(block_type)
            orig_block_init(d, tl.float16, list(shape))
            samples += [_same(a, b), _same(c, d), c.shape is not b.shape]
            handle = object()
            t1, t2, t3 = (tensor.__new__(tensor) for _ in range(3))
            orig_tensor_init(t1, handle, a)
            tensor_init(t2, handle, a)  # fills the cache
            tensor_init(t3, handle, a)  # from the cache
            samples += [_same(t1, t2), _same(t1, t3), t3.shape is not t2.shape]
            del a.__dict__["_drill_tensor_shape"]
        if not all(samples):
            return False
    except Exception:  # noqa: BLE001 - a Triton whose types are built otherwise: keep its own code
        return False
    shapes.clear()
    block_init._drill_fast = True
    block_type.__init__ = block_init
    tensor.__init__ = tensor_init
    return True


def same_shape_broadcast() -> bool:
    """On the interpreter's semantic object only (the compile check's front end keeps Triton's own): operands that
    need no broadcast (two blocks of one shape, two scalars) come back unchanged at once, as Triton's own
    `broadcast_impl_value` returns them. Applied only where that method's source says it returns the originals in
    the scalar-scalar case and compares the shapes dimension by dimension."""
    import types

    try:
        from triton.runtime import interpreter
    except ImportError:
        return False
    sem = getattr(interpreter, "interpreter_semantic", None)
    orig = getattr(sem, "broadcast_impl_value", None)
    if orig is None:
        return False
    if getattr(orig, "_drill_fast", False):
        return True
    try:
        source = inspect.getsource(orig)
    except (OSError, TypeError):
        return False
    if "returns original blocks" not in source or "get_block_shapes()" not in source or "right == left" not in source:
        return False

    def broadcast_impl_value(self, lhs, rhs):
        lhs_ty, rhs_ty = lhs.type, rhs.type
        lhs_block, rhs_block = lhs_ty.is_block(), rhs_ty.is_block()
        if lhs_block and rhs_block:
            a, b = lhs_ty.get_block_shapes(), rhs_ty.get_block_shapes()
            if a is b or list(a) == list(b):
                return lhs, rhs
        elif not lhs_block and not rhs_block:
            return lhs, rhs
        return orig(lhs, rhs)

    broadcast_impl_value._drill_fast = True
    sem.broadcast_impl_value = types.MethodType(broadcast_impl_value, sem)
    return True
