"""The house's rules, read from the code's imports (docs/architecture.md): the grader never imports coach/ or the
CLI, no two project modules import each other in a circle, and every folder says its one job."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("grader", "coach", "drills", "solutions")


def modules() -> dict[str, Path]:
    out = {"cli": ROOT / "cli.py"}
    for pkg in PACKAGES:
        for p in (ROOT / pkg).rglob("*.py"):
            rel = p.relative_to(ROOT).with_suffix("")
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            out[".".join(parts)] = p
    return out


def imports_of(name: str, path: Path, known: set) -> set[str]:
    """Project modules `name` imports anywhere in its file (function-level imports too)."""
    pkg = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(pkg.split(".")[: len(pkg.split(".")) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        else:
            continue
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


def test_the_grader_imports_nothing_from_coach_or_the_cli():
    bad = {(m, t) for m, ts in graph().items() if m.startswith("grader") for t in ts
           if t == "cli" or t.startswith("coach")}
    assert not bad, bad


def test_no_two_modules_import_each_other_in_a_circle():
    g = graph()
    # Tarjan's strongly connected components: a component of more than one module is a circle.
    index, low, stack, on, circles, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in g:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    assert not circles, circles


def test_every_folder_of_grader_and_coach_says_its_job():
    for top in ("grader", "coach"):
        for init in (ROOT / top).rglob("__init__.py"):
            doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
            assert doc and len(doc) > 30, f"{init.relative_to(ROOT)} has no docstring saying what the folder does"


# -- drills are data the grader reads; families are reached through their registry --------------------------------

def test_drills_import_only_grader_core():
    """`drills/` is data: it builds its specs from grader.core's schema and input makers, and nothing else of the
    grader, so the grader can read it without a circle and a spec never depends on how a stage works."""
    bad = {(m, t) for m, ts in graph().items() if m.split(".")[0] == "drills" for t in ts
           if not (t.startswith("grader.core") or t.split(".")[0] == "drills")}
    assert not bad, bad


def test_grader_core_imports_nothing_above_it():
    bad = {(m, t) for m, ts in graph().items() if m.startswith("grader.core") for t in ts
           if not t.startswith("grader.core")}
    assert not bad, bad


def family_modules() -> set[str]:
    return {m for m in modules() if m.startswith("grader.families.") and m != "grader.families.registry"}


def test_no_grader_module_imports_a_family_except_through_the_registry():
    """Only a family's own modules (grader/families/*, grader/reporting/<family>_report.py) import a family module;
    the pipeline asks grader.families.registry for hooks."""
    families = family_modules()
    names = {m.rsplit(".", 1)[1] for m in families}
    bad = set()
    for m, ts in graph().items():
        if not m.startswith("grader") or m.startswith("grader.families."):
            continue
        for t in ts & families:
            own_report = m == f"grader.reporting.{t.rsplit('.', 1)[1]}_report" and t.rsplit(".", 1)[1] in names
            if not own_report:
                bad.add((m, t))
    assert not bad, bad


def test_the_registry_finds_every_rule_module_and_each_spec_names_known_families():
    from drills import SPECS
    from grader.families import registry

    found = set(registry.names())
    rule_files = {p.stem for p in (ROOT / "grader" / "families").glob("*.py")
                  if "def applies(" in p.read_text(encoding="utf-8")}
    assert found == rule_files and {"fusion", "limits", "training", "compiled"} <= found
    for spec in SPECS:
        assert [n for n, _ in registry.for_spec(spec)][0] == "fusion"  # every verdict carries its launch count
        registry.for_spec(spec)  # raises on a name in spec.rules that no family answers to


def test_a_family_named_in_spec_rules_is_turned_on_and_an_unknown_one_is_refused():
    import dataclasses

    import pytest

    from drills import get_spec
    from grader.families import registry

    base = get_spec("vector-add")
    assert [n for n, _ in registry.for_spec(base)] == ["fusion"]
    asked = dataclasses.replace(base, rules={"limits": {}})
    assert [n for n, _ in registry.for_spec(asked)] == ["fusion", "limits"]
    with pytest.raises(AssertionError, match="no-such-family"):
        registry.for_spec(dataclasses.replace(base, rules={"no-such-family": {}}))


# -- no module of grader/ names a drill ---------------------------------------------------------------------------

# Words that are a drill's name and also the grader's own vocabulary: a diagnosis category (grader/judge/diagnose.py
# CATEGORIES) or a hole is named by its category, not by the drill that teaches it.
def drill_words() -> set[str]:
    from drills import names
    from grader.judge.diagnose import CATEGORIES

    words = set()
    for name in names():
        if name in CATEGORIES:
            continue
        words |= {name, name.replace("-", "_")}
    return words


# (module, word): a drill's name that is also another thing's name in code: Tensor.transpose, a view op the torch
# watch lets through.
API_WORDS = {("grader.watch.torch_watch", "transpose")}


def named_drills(path: Path, words: set[str]) -> list[tuple[int, str]]:
    """(line, word) for every string constant that is a drill's name (what `get_spec` takes: a branch on it), and
    every comment or docstring that names one by its name or file slug (a whole word, not an attribute or keyword:
    `@triton.heuristics`, `graph_breaks=` are APIs)."""
    import io
    import re
    import tokenize

    text = path.read_text(encoding="utf-8")
    pattern = re.compile(r"(?<![\w.`=/])(" + "|".join(sorted(map(re.escape, words), key=len, reverse=True))
                         + r")(?![\w=(])", re.IGNORECASE)
    hits = []
    tree = ast.parse(text)
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body and \
                isinstance(node.body[0], ast.Expr) and isinstance(getattr(node.body[0], "value", None), ast.Constant):
            doc = node.body[0].value
            docstrings.add(id(doc))
            hits += [(doc.lineno, m.group(1)) for m in pattern.finditer(str(doc.value))]
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings \
                and node.value in words and "_" not in node.value:
            hits.append((node.lineno, node.value))
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            hits += [(tok.start[0], m.group(1)) for m in pattern.finditer(tok.string)]
    return hits


def test_no_module_of_the_grader_names_a_drill():
    words = drill_words()
    bad = []
    for name, path in modules().items():
        if not name.startswith("grader") or name.startswith("grader.reporting") and name.endswith("_texts") \
                or name == "grader.reporting.i18n":
            continue  # learner-facing texts: the catalog's (issue 18's text half); checked there
        bad += [f"{path.relative_to(ROOT)}:{line}: {word}" for line, word in named_drills(path, words)
                if (name, word.lower()) not in API_WORDS]
    assert not bad, "\n".join(bad)


def test_the_drill_name_check_sees_a_name_in_code_and_in_a_comment(tmp_path):
    words = drill_words()
    f = tmp_path / "m.py"
    f.write_text('"""Rows of a softmax."""\nif spec.name == "conv2d":  # the matmul-epilogue case\n    pass\n'
                 'x = triton.heuristics\ny = set_logs(graph_breaks=True)\nz = out["graph_breaks"]\n', encoding="utf-8")
    assert sorted(named_drills(f, words)) == [(1, "softmax"), (2, "conv2d"), (2, "matmul-epilogue")]
