"""libdevice under Triton's interpreter: numpy versions of the common float functions.

Under TRITON_INTERPRET=1, `triton.language.extra.libdevice.tanh` is a stub whose body is `...` (it returns None, and
the next op fails with "TypeError: cannot convert None ... to tensor"), and `triton.language.extra.cuda.libdevice`
calls `extern_elementwise`, which the interpreter refuses (NotImplementedError). Same in Triton 3.6 and 3.9.
`install()` replaces the functions of both modules (before the learner's module is imported) with numpy versions,
computed in float64 and rounded to the argument's dtype; a function we do not provide raises `LibdeviceUnsupported`
naming the portable `tl.*` alternative, never a raw TypeError.
"""
from __future__ import annotations

import math

import numpy as np

from grader.core import catalog
from grader.watch.bf16_cpu import NotCheckedOnCPU, bf16_bits_to_f32, f32_to_bf16_bits

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])
_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])
_tgamma = np.vectorize(math.gamma, otypes=[np.float64])


def _normcdf(x):
    return 0.5 * _erfc(-x / math.sqrt(2.0))


UNARY = {
    "abs": np.abs, "fabs": np.abs, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint,
    "nearbyint": np.rint, "round": lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5),
    "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(10.0, x), "expm1": np.expm1,
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sqrt": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x), "cbrt": np.cbrt, "rcbrt": lambda x: 1.0 / np.cbrt(x),
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "sinpi": lambda x: np.sin(np.pi * x),
    "cospi": lambda x: np.cos(np.pi * x), "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "erf": _erf, "erfc": _erfc, "lgamma": _lgamma, "tgamma": _tgamma,
    "normcdf": _normcdf, "saturatef": lambda x: np.clip(x, 0.0, 1.0),
    "fast_expf": np.exp, "fast_logf": np.log, "fast_log2f": np.log2, "fast_log10f": np.log10,
    "fast_exp10f": lambda x: np.power(10.0, x), "fast_tanhf": np.tanh, "fast_sinf": np.sin,
    "fast_cosf": np.cos, "fast_tanf": np.tan,
}
for _mode in ("rn", "rz", "rd", "ru"):
    UNARY[f"sqrt_{_mode}"] = np.sqrt
    UNARY[f"rcp_{_mode}"] = lambda x: 1.0 / x
UNARY["rsqrt_rn"] = UNARY["rsqrt"]

BINARY = {
    "pow": np.power, "fast_powf": np.power, "atan2": np.arctan2, "fmod": np.fmod, "remainder": np.remainder,
    "hypot": np.hypot, "copysign": np.copysign, "nextafter": np.nextafter, "fmin": np.fmin, "fmax": np.fmax,
    "fdim": lambda a, b: np.maximum(a - b, 0.0), "fast_dividef": np.divide,
}
for _mode in ("rn", "rz", "rd", "ru"):
    BINARY[f"div_{_mode}"] = np.divide
    BINARY[f"add_{_mode}"] = np.add
    BINARY[f"sub_{_mode}"] = np.subtract
    BINARY[f"mul_{_mode}"] = np.multiply
TERNARY = {"fma": lambda a, b, c: a * b + c}
for _mode in ("rn", "rz", "rd", "ru"):
    TERNARY[f"fma_{_mode}"] = TERNARY["fma"]
PREDICATES = {"isnan": np.isnan, "isinf": np.isinf, "signbit": np.signbit, "finitef": np.isfinite,
              "isfinited": np.isfinite}

# What to write instead, for the functions we do not provide.
PORTABLE = "tl.exp, tl.exp2, tl.log, tl.sqrt, tl.rsqrt, tl.sigmoid, tl.erf, tl.abs, tl.fma, tl.maximum"


class LibdeviceUnsupported(NotCheckedOnCPU):
    """A libdevice function the interpreter cannot run and we do not emulate."""


def _to_float(handle_data: np.ndarray, tl_dtype) -> np.ndarray:
    if tl_dtype.is_bf16():
        return bf16_bits_to_f32(handle_data).astype(np.float64)
    return handle_data.astype(np.float64)


def _from_float(values: np.ndarray, tl_dtype) -> np.ndarray:
    if tl_dtype.is_bf16():
        return f32_to_bf16_bits(values.astype(np.float32))
    from triton.runtime.interpreter import _get_np_dtype
    return values.astype(_get_np_dtype(tl_dtype))


def _apply(name: str, fn, args, predicate: bool = False):
    import triton.language as tl
    from triton.runtime.interpreter import TensorHandle

    tensors = [a for a in args if isinstance(a, tl.tensor)]
    if not tensors:
        raise LibdeviceUnsupported(catalog.text("check_details.libdevice_no_tensor", "en", name=name))
    ref = max(tensors, key=lambda t: np.asarray(t.handle.data).ndim)
    elt = ref.dtype
    for t in tensors:  # the widest float type among the arguments decides the result type
        if t.dtype.is_fp64():
            elt = t.dtype
    if not elt.is_floating() and not predicate:
        raise LibdeviceUnsupported(catalog.text("check_details.libdevice_dtype", "en", name=name, dtype=elt,
                                                portable=PORTABLE))
    values = []
    for a in args:
        if isinstance(a, tl.tensor):
            values.append(_to_float(np.asarray(a.handle.data), a.dtype) if a.dtype.is_floating()
                          else np.asarray(a.handle.data).astype(np.float64))
        else:
            values.append(np.float64(getattr(a, "value", a)))
    with np.errstate(all="ignore"):
        result = np.asarray(fn(*values))
    if predicate:
        data, out_elt = result.astype(np.bool_), tl.int1
    else:
        data, out_elt = _from_float(result, elt), elt
    shape = list(result.shape)
    ty = tl.block_type(out_elt, shape) if ref.type.is_block() else out_elt
    if not ref.type.is_block() and data.ndim == 0:
        data = data.reshape(1)
    return tl.tensor(TensorHandle(data, out_elt.scalar if hasattr(out_elt, "scalar") else out_elt), ty)


def _make(name: str):
    if name in UNARY:
        fn, pred = UNARY[name], False
    elif name in BINARY:
        fn, pred = BINARY[name], False
    elif name in TERNARY:
        fn, pred = TERNARY[name], False
    elif name in PREDICATES:
        fn, pred = PREDICATES[name], True
    else:
        def unsupported(*args, _name=name, **kwargs):
            raise LibdeviceUnsupported(catalog.text("check_details.libdevice_missing", "en", name=_name,
                                                    portable=PORTABLE))
        unsupported.__name__ = name
        return unsupported

    def emulated(*args, _name=name, _fn=fn, _pred=pred, **kwargs):
        return _apply(_name, _fn, [a for a in args], _pred)

    emulated.__name__ = name
    return emulated


ORIGINALS: dict = {}  # (module name, function name) -> Triton's libdevice function, for the compiler front end


def install() -> list[str]:
    """Replace the libdevice functions (generic stubs and the CUDA externs) with numpy versions. Returns the
    modules patched. Call before the learner's module is imported, and only under the interpreter."""
    import importlib
    import inspect

    patched = []
    for modname in ("triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice"):
        try:
            mod = importlib.import_module(modname)
        except Exception:  # noqa: BLE001 - a Triton build without it
            continue
        for name, value in list(vars(mod).items()):
            if name.startswith("_") or inspect.ismodule(value) or isinstance(value, type):
                continue
            if not callable(value):
                continue
            f = _make(name)
            f.__module__ = "triton.language.extra.libdevice"  # the JIT hasher skips libdevice stubs by module
            ORIGINALS.setdefault((modname, name), value)
            f._drill_original = ORIGINALS[(modname, name)]  # `from ...libdevice import rsqrt` copies f itself
            setattr(mod, name, f)
        patched.append(modname)
    return patched
