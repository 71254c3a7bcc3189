"""`drill inductor`: what torch.compile wrote for a drill's eager reference, and where your kernel's pieces are in it.

Pure functions (no torch import): pick the size, spawn the capture child (coach/inductor/child.py) with a timeout,
split Inductor's output code into kernels, find the pieces (program id / offsets, mask, loads, stores), decode
kernel names, line Inductor's pieces up with a learner's kernel, and grade the quiz.
"""
from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader.core import catalog

from grader.core.data import numel_of
from grader.run.proc import bytecode_env, child_env, kill_group, reaped, scratch_dir, spawn
from grader.core.spec import ROOT

DEFAULT_TIMEOUT_S = 600.0  # a cold C++ compile on a 2-core machine takes ~20 s; be generous, never hang


# ---------------------------------------------------------------- size

def pick_size(sizes):
    """The first spec size with at least 100000 elements (the guide's n), else the largest."""
    sizes = list(sizes)
    for s in sizes:
        if numel_of(s) >= 100000:
            return s
    return max(sizes, key=numel_of)


# ---------------------------------------------------------------- capture (parent side)

def _said(key: str, **kw) -> str:
    """A failure of the capture child, in the learner's language (DRILL_LANG, set by the CLI's --lang)."""
    from grader.reporting.i18n import resolve_lang

    return catalog.text(f"coach.inductor_child.{key}", resolve_lang(), **kw)


def run_capture(drill: str, device: str = "cpu", backend: str = "auto", cold: bool = False,
                timeout: float = DEFAULT_TIMEOUT_S) -> dict:
    """Compile in a child process. Always returns a dict; on failure it has `error` (type, message)."""
    with scratch_dir("drill-inductor-") as work:
        out = os.path.join(work, "capture.json")
        log_path = os.path.join(work, "log.txt")
        # A cold compile's fresh caches live in our scratch folder: removed with it, even if the child is killed.
        cmd = [sys.executable, "-m", "coach.inductor.child", "--drill", drill, "--out", out, "--device", device,
               "--backend", backend] + (["--cold", os.path.join(work, "cache")] if cold else [])
        env = child_env(**bytecode_env())
        started = time.monotonic()
        with open(log_path, "w+b") as log:
            proc = spawn(cmd, cwd=str(ROOT), env=env, stdin=subprocess.DEVNULL, stdout=log,
                         stderr=subprocess.STDOUT)
            timed_out = False
            try:
                proc.wait(timeout=timeout)
                reaped(proc)
            except subprocess.TimeoutExpired:
                timed_out = True
                kill_group(proc)
            log.seek(0)
            output = log.read().decode("utf-8", "replace")[-3000:]
        elapsed = time.monotonic() - started
        if timed_out:
            return {"error": {"type": "timeout", "message": _said("timed_out", seconds=f"{timeout:.0f}")},
                    "output": output, "wall_s": elapsed}
        try:
            with open(out, encoding="utf-8") as f:
                result = json.load(f)
        except (OSError, ValueError):
            return {"error": {"type": "crash", "message": _said("died", code=proc.returncode)},
                    "output": output, "wall_s": elapsed}
        result["wall_s"] = elapsed
        result["output"] = output
        return result


# ---------------------------------------------------------------- output code -> kernels

@dataclass
class Piece:
    kind: str        # pid | offsets | mask | load | store | numel | loop, and in a matmul: MATMUL_KINDS
    line: int        # 1-based line in Kernel.shown
    text: str
    pointer: str | None = None   # load/store: the pointer argument (in_ptr0, x_ptr, ...)
    masked: bool | None = None   # load/store: whether a mask is passed


@dataclass
class Kernel:
    name: str
    lang: str                    # triton | cpp
    source: str                  # the whole kernel module / C++ source as Inductor wrote it
    shown: str                   # the part a learner reads (from @triton.jit, or from extern "C")
    aten_ops: list = field(default_factory=list)   # from the "Original ATen: [...]" comment
    source_nodes: list = field(default_factory=list)
    pieces: list = field(default_factory=list)

    def lines_of(self, kind: str) -> list[int]:
        return [p.line for p in self.pieces if p.kind == kind]


_KERNEL_DEF = re.compile(r"^(\w+) = async_compile\.(\w+)\((.*?)(r?)'''\n(.*?)'''", re.S | re.M)


def _comment_block(code: str, start: int) -> list[str]:
    lines = code[:start].rstrip("\n").split("\n")
    block = []
    for line in reversed(lines):
        if not line.startswith("#"):
            break
        block.append(line)
    return list(reversed(block))


def _bracket_list(block: list[str], label: str) -> list[str]:
    for line in block:
        m = re.search(re.escape(label) + r":\s*\[(.*?)\]", line)
        if m:
            return [s.strip() for s in m.group(1).split(",") if s.strip()]
    return []


def extract_kernels(code: str) -> list[Kernel]:
    """The kernels defined in one Inductor output-code module (`NAME = async_compile.triton/cpp...('''...''')`)."""
    kernels = []
    for m in _KERNEL_DEF.finditer(code):
        name, kind, source = m.group(1), m.group(2), m.group(5)
        lang = "triton" if kind == "triton" else "cpp" if kind.startswith("cpp") else kind
        block = _comment_block(code, m.start())
        aten = [a.split(".", 1)[-1] for a in _bracket_list(block, "Original ATen")]
        nodes = _bracket_list(block, "Topologically Sorted Source Nodes")
        shown = _shown_part(source, lang)
        k = Kernel(name=name, lang=lang, source=source, shown=shown, aten_ops=aten, source_nodes=nodes)
        k.pieces = kernel_pieces(shown) if lang == "triton" else cpp_pieces(shown)
        kernels.append(k)
    return kernels


def _shown_part(source: str, lang: str) -> str:
    lines = source.split("\n")
    marker = "@triton.jit" if lang == "triton" else 'extern "C"'
    for i, line in enumerate(lines):
        if line.strip().startswith(marker):
            return "\n".join(lines[i:]).rstrip() + "\n"
    return source.rstrip() + "\n"


_ASSIGN = re.compile(r"^\s*([A-Za-z_]\w*)\s*=(?!=)\s*(.*)$")


def _first_arg(call_text: str) -> str | None:
    m = re.search(r"tl\.(?:load|store)\(\s*([A-Za-z_]\w*)", call_text)
    return m.group(1) if m else None


def _call_args(line: str, func: str) -> str:
    """The text between the parentheses of `func(` on this line (best effort, one line)."""
    i = line.find(func + "(")
    if i < 0:
        return ""
    depth, j = 0, i + len(func)
    for k in range(j, len(line)):
        if line[k] == "(":
            depth += 1
        elif line[k] == ")":
            depth -= 1
            if depth == 0:
                return line[j + 1:k]
    return line[j + 1:]


def _split_top(args: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in args:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _mask_arg(args: list[str], op: str) -> str | None:
    for a in args:
        if a.replace(" ", "").startswith("mask="):
            return a.split("=", 1)[1].strip()
    pos = 1 if op == "load" else 2
    if len(args) > pos and not re.match(r"^\w+\s*=[^=]", args[pos]):
        return args[pos]
    return None


_NAMED_MASK = r"([A-Za-z_]\w*)(?:\[[^\]]*\])?"  # `m`, or `m[None, :]`: a mask computed on a line of its own


def triton_pieces(text: str) -> list[Piece]:
    """The pieces of any Triton kernel's source, Inductor's or a learner's: program id, offsets (tl.arange),
    mask (an assignment to a name passed as a load/store mask, or with `mask` in its name), loads and stores
    (with their pointer and whether masked)."""
    lines = [line.split("#", 1)[0] for line in text.split("\n")]
    mask_names = set()
    for code in lines:
        for op in ("load", "store"):
            if f"tl.{op}(" in code:
                arg = _mask_arg(_split_top(_call_args(code, f"tl.{op}")), op)
                named = re.fullmatch(_NAMED_MASK, arg or "")
                if named:
                    mask_names.add(named.group(1))
    pieces = []
    for n, code in enumerate(lines, start=1):
        if not code.strip():
            continue
        line = text.split("\n")[n - 1].strip()
        if "tl.program_id" in code:
            pieces.append(Piece("pid", n, line))
        if "tl.arange" in code:
            pieces.append(Piece("offsets", n, line))
        m = _ASSIGN.match(code)
        if m and (m.group(1) in mask_names or "mask" in m.group(1).lower()) and "tl.load" not in code:
            pieces.append(Piece("mask", n, line))
        if m and re.fullmatch(r"\w*numel", m.group(1)) and re.fullmatch(r"\d+", m.group(2).strip()):
            pieces.append(Piece("numel", n, line))
        for op in ("load", "store"):
            if f"tl.{op}(" in code:
                arg = _mask_arg(_split_top(_call_args(code, f"tl.{op}")), op)
                pieces.append(Piece(op, n, line, pointer=_first_arg(code), masked=arg is not None))
    return pieces


# The roles in a tiled matmul (Inductor's mm template or a learner's kernel), beyond the pointwise ones.
MATMUL_KINDS = ("program", "config", "tile", "group", "baked", "wrap", "acc", "k-loop", "k-mask", "dot", "edge-mask", "epilogue-load",
                "epilogue-add", "cast", "relu", "epilogue-op")
_RELU = re.compile(r"maximum\(|\brelu\(|tl\.where\(|clamp")
_NAME = re.compile(r"[A-Za-z_]\w*")


def kernel_pieces(text: str) -> list[Piece]:
    """A Triton kernel's pieces: a matmul's (a loop around tl.dot) or a pointwise/reduction kernel's."""
    return matmul_pieces(text) if _dot_loop(_code_lines(text)) else triton_pieces(text)


def _code_lines(text: str) -> list[str]:
    return [line.split("#", 1)[0].rstrip() for line in text.split("\n")]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _dot_loop(code: list[str]) -> tuple[int, int] | None:
    """(first, last) 1-based lines of the first `for` loop whose body calls tl.dot: the K loop."""
    for i, line in enumerate(code):
        if not re.match(r"\s*for\s.*\brange\(", line):
            continue
        last = i
        for j in range(i + 1, len(code)):
            if code[j].strip() and _indent(code[j]) <= _indent(line):
                break
            if code[j].strip():
                last = j
        if any("tl.dot(" in code[j] for j in range(i + 1, last + 1)):
            return i + 1, last + 1
    return None


def _assign(line: str):
    """(name, operator, right-hand side) of `name = ...`, `name += ...`, `name : type = ...`, else None."""
    m = re.match(r"^\s*([A-Za-z_]\w*)\s*(?::[^=]*)?([+\-*/]?=)(?!=)\s*(.*)$", line)
    return (m.group(1), m.group(2), m.group(3)) if m else None


def matmul_pieces(text: str) -> list[Piece]:
    """The pieces of a tiled matmul kernel, Inductor's mm template or a learner's, found the same way in both: the
    program's tile (and grouped ordering), shapes baked in as constants, indices wrapped with `%` instead of masked,
    the float32 accumulator, the K loop with tl.dot, its loads and the K-tail mask, the M/N edge mask, and the
    epilogue: every line after the loop that computes from the accumulator (a load of another input, the add, a cast,
    the relu) and the store."""
    raw = text.split("\n")
    code = _code_lines(text)
    loop = _dot_loop(code)
    pieces = triton_pieces(text)
    if loop is None:
        return pieces
    first, last = loop
    out = []
    for p in pieces:
        if p.kind == "pid":
            p = replace(p, kind="program")
        elif p.kind == "mask" and p.line > first:
            p = replace(p, kind="k-mask" if p.line <= last else "edge-mask")
        elif p.kind == "load" and p.line > last:
            p = replace(p, kind="epilogue-load")
        out.append(p)
        if p.kind in ("load", "store") and p.masked and p.line > first:
            args = _split_top(_call_args(code[p.line - 1], f"tl.{p.kind}"))
            if not re.fullmatch(_NAMED_MASK, _mask_arg(args, p.kind) or "x"):  # a mask written inline
                out.append(Piece("k-mask" if p.line <= last else "edge-mask", p.line, p.text))

    def add(kind, n):
        out.append(Piece(kind, n, raw[n - 1].strip()))

    add("k-loop", first)
    offsets = {a[0] for p in pieces if p.kind == "offsets" and (a := _assign(code[p.line - 1]))}
    for n in range(1, first):
        a = _assign(code[n - 1])
        if not a:
            continue
        name, _, rhs = a
        if re.match(r"^\s*\w+\s*:\s*tl\.constexpr\s*=", code[n - 1]):
            add("config", n)
        elif re.fullmatch(r"pid_?[mn]", name, re.I):
            add("tile", n)
        elif "group" in (name + rhs).lower():
            add("group", n)
        if re.fullmatch(r"[MNK]|stride_\w+", name) and re.fullmatch(r"\d+", rhs.strip()):
            add("baked", n)
        if any(re.search(rf"\b{re.escape(o)}\s*%\s*[A-Za-z_]", rhs) for o in offsets):
            add("wrap", n)
        if "tl.zeros(" in rhs:
            add("acc", n)
    for n in range(first + 1, last + 1):
        if "tl.dot(" in code[n - 1]:
            add("dot", n)
    derived = {a[0] for p in out if p.kind == "acc" and (a := _assign(code[p.line - 1]))}
    loaded = set()
    for n in range(last + 1, len(code) + 1):
        a = _assign(code[n - 1])
        if not a or "tl.store(" in code[n - 1]:
            continue
        name, op, rhs = a
        if "tl.load(" in rhs:
            loaded.add(name)
            continue
        used = set(_NAME.findall(rhs)) | ({name} if op != "=" else set())
        if not used & derived:
            continue
        derived.add(name)
        if _RELU.search(rhs):
            add("relu", n)
        elif used & loaded and ("+" in rhs or op == "+="):
            add("epilogue-add", n)
        elif re.fullmatch(r"[A-Za-z_]\w*\.to\([^()]*\)", rhs.strip()):
            add("cast", n)
        else:
            add("epilogue-op", n)
    return sorted(out, key=lambda p: p.line)


def cpp_pieces(text: str) -> list[Piece]:
    """The same roles in Inductor's C++ kernel: the loop over x (work split by OpenMP, stepped by the vector width),
    the bound check / tail (the mask's job), the loads and the stores."""
    pieces = []
    for n, line in enumerate(text.split("\n"), start=1):
        s = line.strip()
        if s.startswith("for(") or s.startswith("for ("):
            pieces.append(Piece("loop", n, s))
        if s.startswith("if(") and "<" in s:
            pieces.append(Piece("mask", n, s))
        for m in re.finditer(r"loadu\(\s*(\w+)|(\bin_ptr\d+)\[", s):
            pieces.append(Piece("load", n, s, pointer=m.group(1) or m.group(2)))
        m = re.search(r"\.store\(\s*(\w+)|(\bout_ptr\d+)\[[^\]]*\]\s*=", s)
        if m:
            pieces.append(Piece("store", n, s, pointer=m.group(1) or m.group(2)))
    return pieces


def wrapper_launch_lines(code: str, kernel_names: list[str]) -> list[str]:
    """The lines of the wrapper's `call()` that launch the kernels (and any grid= there)."""
    lines = code.split("\n")
    start = next((i for i, l in enumerate(lines) if re.match(r"\s*def call\(", l)), None)
    if start is None:
        return []
    found = []
    for line in lines[start:]:
        if line.strip().startswith("return"):
            break
        if any(re.search(rf"\b{re.escape(k)}(\.run)?\(", line) for k in kernel_names) or "grid=" in line:
            found.append(line.strip())
    return found


# ---------------------------------------------------------------- kernel names

CATEGORIES = catalog.section("coach.inductor_categories")  # texts.yaml


def decode_kernel_name(name: str, aten_ops: list[str] | None = None) -> dict:
    """`triton_poi_fused_add_relu_0` -> backend triton, pointwise, fused ops [add, relu], index 0.

    Inductor names a kernel `triton_<first 3 letters of its heuristic>_fused_<sorted original ATen ops>_<n>`
    (`cpp_fused_<ops>_<n>` on the C++ backend). Op names may contain underscores (`_softmax`,
    `native_layer_norm`): pass the kernel's "Original ATen" list to split them exactly."""
    out = {"name": name, "backend": None, "category": None, "category_en": None, "category_zh": None,
           "fused": False, "ops": [], "index": None}
    rest = name
    if rest.startswith("triton_"):
        out["backend"], rest = "triton", rest[len("triton_"):]
        cat = rest.split("_", 1)[0]
        if cat in CATEGORIES:
            out["category"] = cat
            out["category_en"], out["category_zh"] = CATEGORIES[cat]["en"], CATEGORIES[cat]["zh"]
            rest = rest[len(cat) + 1:]
    elif rest.startswith("cpp_"):
        out["backend"], rest = "cpp", rest[len("cpp_"):]
    m = re.search(r"_(\d+)$", rest)
    if m:
        out["index"] = int(m.group(1))
        rest = rest[:m.start()]
    if rest.startswith("fused_"):
        out["fused"] = True
        rest = rest[len("fused_"):]
    elif rest == "fused":
        out["fused"], rest = True, ""
    out["ops"] = _split_ops(rest, aten_ops)
    return out


def _split_ops(rest: str, known: list[str] | None) -> list[str]:
    if not rest:
        return []
    known = sorted(set(known or []), key=len, reverse=True)
    ops, i = [], 0
    while i < len(rest):
        for op in known:
            if rest.startswith(op, i) and (i + len(op) == len(rest) or rest[i + len(op)] == "_"):
                ops.append(op)
                i += len(op) + 1
                break
        else:
            # no known op here: a token up to the next underscore; a leading underscore belongs to the op
            j = i + 1 if rest[i] == "_" else i
            k = rest.find("_", j)
            k = len(rest) if k < 0 else k
            ops.append(rest[i:k])
            i = k + 1
    return ops


# ---------------------------------------------------------------- a learner's kernel, read as text

def learner_kernel_sources(source: str) -> list[tuple[str, str, int]]:
    """Every @triton.jit function of a Python file in file order, read (never imported): [(text, name, first line)]."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    lines = source.split("\n")
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for d in node.decorator_list:
                text = ast.get_source_segment(source, d) or ""
                if "jit" in text:
                    start = min([node.lineno] + [x.lineno for x in node.decorator_list])
                    found.append(("\n".join(lines[start - 1:node.end_lineno]) + "\n", node.name, start))
                    break
    return sorted(found, key=lambda k: k[2])


def learner_kernel_source(source: str) -> tuple[str, str | None, int]:
    """The first @triton.jit function of a Python file, read (never imported): (text, name, first line)."""
    found = learner_kernel_sources(source)
    return found[0] if found else ("", None, 0)


def pair_kernels(n_inductor: int, n_mine: int) -> list[tuple[int, int]]:
    """Which of Inductor's kernels (launch order) to show beside which of the learner's (file order): the first
    min - 1 in order, then the last with the last (a forward + backward: Inductor's final reduction across rows
    beside the learner's final reduction kernel, whatever each fused in between)."""
    k = min(n_inductor, n_mine)
    if k == 0:
        return []
    return [(i, i) for i in range(k - 1)] + [(n_inductor - 1, n_mine - 1)]


ROWS = ("pid", "offsets", "mask", "load", "store")


def line_up(inductor: list[Piece], mine: list[Piece], rows_of: tuple = ROWS) -> list[dict]:
    """Rows of (piece, Inductor's lines, the other kernel's lines), loads and stores paired in order."""
    rows = []
    for kind in rows_of:
        a = [p for p in inductor if p.kind == kind]
        b = [p for p in mine if p.kind == kind]
        if kind in ("load", "store"):
            for i in range(max(len(a), len(b))):
                rows.append({"piece": f"{kind} {i + 1}", "kind": kind, "inductor": a[i:i + 1], "mine": b[i:i + 1]})
        else:
            rows.append({"piece": kind, "kind": kind, "inductor": a, "mine": b})
    return rows


# ---------------------------------------------------------------- quiz

@dataclass
class Question:
    id: str
    prompt: dict          # {"en": ..., "zh": ...}
    accepted: list        # line numbers that count as right


MATMUL_QUESTIONS = ("k-loop", "dot", "k-mask", "epilogue-load", "epilogue-add", "relu", "store")  # texts.yaml


def quiz_questions(kernel: Kernel) -> list[Question]:
    """Which line computes the mask, which loads each input pointer, which stores; for a matmul, where the K loop,
    tl.dot, the K-tail mask, the epilogue's bias load, add and relu, and the store are."""
    if kernel.lines_of("dot"):
        return [Question(kind, catalog.both(f"coach.inductor_quiz.{kind}"), sorted(set(kernel.lines_of(kind))))
                for kind in MATMUL_QUESTIONS if kernel.lines_of(kind)]
    qs = []
    if kernel.lines_of("mask"):
        qs.append(Question("mask", catalog.both("coach.inductor_quiz.mask"), sorted(set(kernel.lines_of("mask")))))
    seen = []
    for p in kernel.pieces:
        if p.kind == "load" and p.pointer and p.pointer not in seen:
            seen.append(p.pointer)
    for ptr in seen:
        lines = sorted({p.line for p in kernel.pieces if p.kind == "load" and p.pointer == ptr})
        qs.append(Question(f"load:{ptr}", catalog.both("coach.inductor_quiz.load", ptr=ptr), lines))
    stores = sorted(set(kernel.lines_of("store")))
    if stores:
        qs.append(Question("store", catalog.both("coach.inductor_quiz.store"), stores))
    return qs


def parse_line_answer(answer) -> int | None:
    if isinstance(answer, int):
        return answer
    m = re.search(r"-?\d+", str(answer or ""))
    return int(m.group(0)) if m else None


def grade_quiz(questions: list[Question], answers: dict) -> dict:
    items = []
    for q in questions:
        given = parse_line_answer(answers.get(q.id))
        items.append({"id": q.id, "answer": given, "accepted": q.accepted, "correct": given in q.accepted})
    score = sum(1 for i in items if i["correct"])
    return {"score": score, "total": len(items), "items": items}


def record_quiz(store, drill: str, kernel_name: str, result: dict) -> dict:
    """state["quiz"]["inductor"][drill]: attempts, best, last (atomic via Store.update)."""
    with store.update() as state:
        section = state.setdefault("quiz", {}).setdefault("inductor", {})
        entry = section.setdefault(drill, {"attempts": 0, "best": 0, "total": 0, "last": None})
        entry["attempts"] += 1
        entry["best"] = max(entry.get("best", 0), result["score"])
        entry["total"] = result["total"]
        entry["last"] = {"at": time.time(), "kernel": kernel_name, "score": result["score"],
                         "total": result["total"], "wrong": [i["id"] for i in result["items"] if not i["correct"]]}
        return dict(entry)


# ---------------------------------------------------------------- --save

def unique_path(path: Path) -> Path:
    """`path` if free, else path with .1, .2, ... before the suffix: never overwrite."""
    if not path.exists():
        return path
    n = 1
    while True:
        candidate = path.with_name(f"{path.stem}.{n}{path.suffix}")
        if not candidate.exists():
            return candidate
        n += 1


def save_capture(capture: dict, kernels: list[Kernel], folder: Path) -> list[Path]:
    from coach.store import atomic_write_text

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    drill = capture.get("drill", "drill")
    written = []
    for i, code in enumerate(capture.get("codes", [])):
        p = unique_path(folder / f"{drill}_output_code{'' if i == 0 else f'_{i}'}.py")
        atomic_write_text(p, code)
        written.append(p)
    for k in kernels:
        p = unique_path(folder / f"{k.name}.{'py' if k.lang == 'triton' else 'cpp'}")
        atomic_write_text(p, k.source)
        written.append(p)
    meta = {key: v for key, v in capture.items() if key not in ("codes", "output")}
    p = unique_path(folder / f"{drill}_capture.json")
    atomic_write_text(p, json.dumps(meta, indent=1, ensure_ascii=False, default=str))
    written.append(p)
    return written
