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

import os
import re
from contextlib import contextmanager

TARGET = ("cuda", 90, 32)  # sm_90 (H100 / H200), 32-thread warps

_TORCH_TO_TRITON = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64", "int32": "i32",
                    "int64": "i64", "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "i1"}


class CompilerRejects(Exception):
    """Raised before an interpreted launch whose kernel Triton's compiler rejects; `detail` is FrontEnd's dict."""

    learner_facing = True  # grader.core.faults: raised by drill on purpose, about the learner's kernel

    def __init__(self, detail: dict):
        super().__init__(detail["message"])
        self.detail = detail


@contextmanager
def compiled_library(fn, made: dict | None = None, twins: dict | None = None):
    """Under TRITON_INTERPRET=1 every @triton.jit function — Triton's own library (tl.sum, tl.cdiv, ...), tensor
    methods and the learner's helpers — is an InterpretedFunction, which the code generator would call as plain
    Python. For the front end's duration, put a JITFunction of the same Python function in each place. TWINS (id ->
    (JITFunction, InterpretedFunction)), when given, keeps the JITFunctions for the next compile of the same grade:
    building one parses its function's source, and a compile check swaps in every library function each time."""
    import sys

    import triton.language as tl
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    swapped = []
    made = {} if made is None else made  # id -> (JITFunction twin, InterpretedFunction)

    def compiled(obj):
        if id(obj) not in made:
            pair = twins.get(id(obj)) if twins is not None else None
            if pair is None or pair[1] is not obj:
                pair = (_jit_twin(obj), obj)  # the original kept alive: its id stays its own
                if twins is not None:
                    twins[id(obj)] = pair
            made[id(obj)] = pair
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
        self.params: dict = {}   # kernel function -> its JITFunction's params (every launch needs them)
        self.twins: dict = {}    # the library's JITFunction twins, built once per grade (compiled_library)

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

    def signature(self, kernel, arguments: dict) -> tuple[dict, dict]:
        import torch
        from triton.runtime.jit import JITFunction

        params = self.params.get(kernel.fn)
        if params is None:  # a JITFunction parses its function's source: once per kernel, not per launch
            params = self.params[kernel.fn] = JITFunction(kernel.fn).params
        signature, constexprs = {}, {}
        for p in params:
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
        met: dict = {}
        try:
            with compiled_library(fn, met, self.twins):
                src.make_ir(target, options, codegen_fns, module_map, context)
        except Exception as e:  # noqa: BLE001 - Triton's CompilationError (or what it raised): the learner's
            fault = front_end_fault(e, self.learner_file)
            if fault is not None:  # our swap of the interpreter out of the front end failed, not the kernel
                return {"internal": fault, "kernel": fn.__name__, "compiler": True}
            return self.describe(e, fn, [fn] + [twin.fn for twin, _ in met.values()])
        return None

    def describe(self, e: BaseException, fn, functions=()) -> dict:
        """Triton's own message and where it points: the innermost jit function it names (a helper in another
        file is named by file and line) and the learner's line (that function's, else the call into it)."""
        from grader.core.faults import chain

        errors = [x for x in chain(e) if type(x).__name__ == "CompilationError"] or [e]
        located = [(err, _locate(err, functions or [fn])) for err in errors]
        inner, (inner_file, inner_line, inner_fn) = located[-1]
        ours = [(f, ln) for _, (f, ln, _) in located if f == self.learner_file and ln]
        line = inner_line if inner_file == self.learner_file else (ours[-1][1] if ours else None)
        why = _message(inner)
        if inner_file and inner_file != self.learner_file and inner_line:
            why = f"{os.path.basename(inner_file)}:{inner_line} in `{inner_fn}`: {why}"
        return {"type": type(e).__name__, "message": why[:800], "line": line, "kernel": fn.__name__,
                "cuda_fault": False, "compiler": True}


def _message(err: BaseException) -> str:
    """A CompilationError's own message, else the exception it wraps (a NameError for a plain global, ...)."""
    from grader.core.faults import chain

    own = getattr(err, "error_message", None)
    if own:
        return str(own).strip()
    for cause in chain(err)[1:]:
        text = str(cause).strip()
        if text:
            return f"{type(cause).__name__}: {text.splitlines()[-1]}" if type(cause).__name__ != "CompilationError" \
                else _message(cause)
    lines = [ln for ln in str(err).splitlines() if ln.strip()]
    return lines[-1] if lines else type(err).__name__


def _locate(err: BaseException, functions) -> tuple:
    """(file, line, function name) a CompilationError points at: the jit function whose source it quotes, and its
    "at L:C" counted from that function's `def` line."""
    import inspect

    node = getattr(err, "node", None)
    src = getattr(err, "src", None)
    lineno = getattr(node, "lineno", None)
    if src is None or lineno is None:
        return None, None, None
    for f in functions:
        try:
            source, first = inspect.getsourcelines(f)
        except (OSError, TypeError):
            continue
        text = "".join(source)
        body = text[text.find("def "):] if "def " in text else text
        if body.strip() and (src.strip() == body.strip() or src.strip() in text or body.strip() in src):
            def_row = next((i for i, ln in enumerate(source) if ln.lstrip().startswith("def ")), 0)
            return os.path.realpath(f.__code__.co_filename), first + def_row + lineno - 1, f.__name__
    return None, None, None


def front_end_fault(e: BaseException, learner_file: str) -> dict | None:
    """drill's fault, not the kernel's: Triton's interpreter reached from inside the front end (an InterpretedFunction
    we failed to swap for a JITFunction), or an exception raised in drill's own code."""
    from grader.core.faults import chain, describe_fault, drill_fault

    for x in chain(e):
        if type(x).__name__ == "InterpreterError":
            return describe_fault(x, stage="compile check")
    fault = drill_fault(e, learner_file)
    return dict(fault, stage="compile check") if fault else None
