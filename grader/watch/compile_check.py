"""Does Triton's compiler accept the kernel the interpreter just ran? (frontend only, no GPU needed)

The interpreter runs a kernel's Python as Python, so code the compiler rejects runs there: a plain module global
(`SCALE = 0.79`, not a tl.constexpr) read in the kernel, `break` or `return` inside a loop, a loop-carried variable
whose type changes (`acc = 0.0` then `acc += block`), a chained comparison on Triton 3.6, ... On a GPU each is a
CompilationError before anything runs. For every distinct (kernel, argument types, constexprs) a graded call
launches, we run Triton's own front end (AST -> TTIR) for an sm_90 target, exactly the first stage `triton.compile`
runs on a GPU, and report its error with its line. The lowering to PTX and ptxas are not run (they need no GPU, but
cost seconds; the front end is where learner code is rejected).
"""
from __future__ import annotations

import re
from contextlib import contextmanager

TARGET = ("cuda", 90, 32)  # sm_90 (H100 / H200), 32-thread warps

_TORCH_TO_TRITON = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64", "int32": "i32",
                    "int64": "i64", "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "i1"}


class CompilerRejects(Exception):
    """Raised before an interpreted launch whose kernel Triton's compiler rejects; `detail` is FrontEnd's dict."""

    def __init__(self, detail: dict):
        super().__init__(detail["message"])
        self.detail = detail


@contextmanager
def compiled_library(fn):
    """Under TRITON_INTERPRET=1 every @triton.jit function — Triton's own library (tl.sum, tl.cdiv, ...), tensor
    methods and the learner's helpers — is an InterpretedFunction, which the code generator would call as plain
    Python. For the front end's duration, put a JITFunction of the same Python function in each place."""
    import sys

    import triton.language as tl
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    swapped, made = [], {}

    def compiled(obj):
        if id(obj) not in made:
            made[id(obj)] = (_jit_twin(obj), obj)  # the original kept alive: its id stays its own
        return made[id(obj)][0]

    namespaces = [vars(m) for name, m in list(sys.modules.items())
                  if m is not None and (name == "triton.language" or name.startswith("triton.language."))]
    namespaces.append(fn.__globals__)
    from grader.watch.libdevice_cpu import ORIGINALS  # the interpreter's NumPy libdevice: the compiler needs Triton's own
    try:
        for (modname, name), original in ORIGINALS.items():
            module = sys.modules.get(modname)
            if module is not None:
                swapped.append((vars(module), name, vars(module)[name]))
                vars(module)[name] = original
        for ns in namespaces:
            for key, value in list(ns.items()):
                if isinstance(value, InterpretedFunction):
                    swapped.append((ns, key, value))
                    ns[key] = compiled(value)
                elif getattr(value, "_drill_original", None) is not None:
                    swapped.append((ns, key, value))
                    ns[key] = value._drill_original
        for key, value in list(vars(tl.tensor).items()):
            if isinstance(value, InterpretedFunction):
                swapped.append((tl.tensor, key, value))
                setattr(tl.tensor, key, compiled(value))
        swapped += _resolve_in_codegen(lambda v: compiled(v) if isinstance(v, InterpretedFunction) else v)
        yield
    finally:
        for ns, key, value in reversed(swapped):
            if isinstance(ns, dict):
                ns[key] = value
            else:
                setattr(ns, key, value)


def _jit_twin(obj):
    """The JITFunction `@triton.jit` would have made of an InterpretedFunction's Python function (same options)."""
    from triton.runtime.jit import JITFunction

    try:
        return JITFunction(obj.fn, **getattr(obj, "kwargs", {}))
    except TypeError:  # an option this Triton's JITFunction does not take
        return JITFunction(obj.fn)


def _resolve_in_codegen(convert) -> list:
    """Jit functions reached through anything else — a module attribute (`triton_helpers.maximum`,
    `tle.program_id`), a helper's own globals in another file, a helper of a helper — are found by the code
    generator itself as it resolves names, and only there: each CodeGenerator's global scope (one per function it
    compiles, the callee's own module globals) and each attribute it looks up go through `convert`. Returns the
    (class, attribute, original) triples to restore."""
    from triton.compiler import code_generator as cg

    gen = cg.CodeGenerator
    saved = [(gen, "__init__", vars(gen)["__init__"])]
    orig_init = saved[0][2]

    def __init__(self, *args, **kwargs):
        orig_init(self, *args, **kwargs)
        self.gscope = {k: convert(v) for k, v in self.gscope.items()}

    gen.__init__ = __init__
    orig_attr = vars(gen).get("get_Attribute")
    if orig_attr is not None:
        saved.append((gen, "get_Attribute", orig_attr))

        def get_Attribute(self, lhs, attr):
            value = convert(orig_attr(self, lhs, attr))
            if type(value).__name__ != "BoundJITMethod" and isinstance(value, cg.JITFunction) \
                    and cg._is_triton_value(lhs):
                return cg.BoundJITMethod(lhs, value)  # a tensor method, as get_Attribute makes of a JITFunction
            return value

        gen.get_Attribute = get_Attribute
    # The kernel's cache key walks the same names (jit.DependenciesFinder) and refuses a function it does not know.
    from triton.runtime import jit
    finder = getattr(jit, "DependenciesFinder", None)
    orig_record = vars(finder).get("record_reference") if finder is not None else None
    if orig_record is not None:
        saved.append((finder, "record_reference", orig_record))

        def record_reference(self, val, *args, **kwargs):
            return orig_record(self, convert(val), *args, **kwargs)

        finder.record_reference = record_reference
    return saved


class FrontEnd:
    """Compiles each distinct launch once; `check(kernel, arguments)` returns None or Triton's error."""

    def __init__(self, learner_file: str):
        self.learner_file = learner_file
        self.seen: dict = {}

    def check(self, kernel, arguments: dict) -> dict | None:
        fn = getattr(kernel, "fn", None)
        if fn is None or not callable(fn):
            return None
        try:
            signature, constexprs = self.signature(kernel, arguments)
        except Exception:  # noqa: BLE001 - an argument we cannot type: leave it to the interpreter's verdict
            return None
        key = (fn, tuple(sorted(signature.items())), tuple(sorted((k, repr(v)) for k, v in constexprs.items())))
        if key not in self.seen:
            self.seen[key] = self._compile(fn, signature, constexprs)
        return self.seen[key]

    @staticmethod
    def signature(kernel, arguments: dict) -> tuple[dict, dict]:
        import torch
        from triton.runtime.jit import JITFunction

        jit = JITFunction(kernel.fn)
        signature, constexprs = {}, {}
        for p in jit.params:
            v = arguments.get(p.name)
            if p.is_constexpr or v is None or not isinstance(v, (torch.Tensor, bool, int, float)):
                signature[p.name] = "constexpr"
                constexprs[p.name] = v
            elif isinstance(v, torch.Tensor):
                signature[p.name] = "*" + _TORCH_TO_TRITON[str(v.dtype).replace("torch.", "")]
            elif isinstance(v, bool):
                signature[p.name] = "i1"
            elif isinstance(v, int):
                signature[p.name] = "i32" if -2**31 <= v < 2**31 else "i64"
            else:
                signature[p.name] = "fp32"
        return signature, constexprs

    def _compile(self, fn, signature: dict, constexprs: dict) -> dict | None:
        from triton._C.libtriton import ir
        from triton.backends.compiler import GPUTarget
        from triton.compiler.compiler import ASTSource, make_backend
        from triton.runtime.jit import JITFunction

        try:
            target = GPUTarget(*TARGET)
            backend = make_backend(target)
            src = ASTSource(JITFunction(fn), signature, constexprs)
            options = backend.parse_options(dict(src.parse_options()))
            context = ir.context()
            ir.load_dialects(context)
            backend.load_dialects(context)
            codegen_fns = backend.get_codegen_implementation(options)
            module_map = backend.get_module_map()
        except Exception:  # noqa: BLE001 - no front end here (an unusual Triton build): nothing to say
            return None
        try:
            with compiled_library(fn):
                src.make_ir(target, options, codegen_fns, module_map, context)
        except Exception as e:  # noqa: BLE001 - Triton's CompilationError (or what it raised): the learner's
            return self.describe(e, fn)
        return None

    def describe(self, e: BaseException, fn) -> dict:
        """Triton's message (its last, specific line first) and the learner's line it points at."""
        text = str(e).strip()
        lines = [ln for ln in text.splitlines() if ln.strip()]
        # "at 12:8:" counts lines from the function's `def` line (Triton parses the source from `def` on).
        m = re.match(r"at (\d+):(\d+):", lines[0]) if lines else None
        line = None
        if m is not None:
            import inspect
            try:
                source, first = inspect.getsourcelines(fn)
                def_row = next(i for i, ln in enumerate(source) if ln.lstrip().startswith("def "))
                line = first + def_row + int(m.group(1)) - 1
            except (OSError, TypeError, StopIteration):
                line = None
        cause = e.__cause__
        why = lines[-1] if lines else type(e).__name__
        if cause is not None and str(cause).strip() and str(cause).strip() not in why:
            why = f"{why} ({str(cause).strip().splitlines()[-1]})"
        return {"type": type(e).__name__, "message": why[:800], "line": line, "kernel": fn.__name__,
                "cuda_fault": False, "compiler": True}
