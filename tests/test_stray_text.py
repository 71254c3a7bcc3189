"""No learner-visible English outside the catalog: an AST scan of grader/, coach/ and cli.py for string literals that
reach the learner (printed, echoed, put in a rich Text or table, a line appended to a report, a status line or a
store warning, an exception's message, a check row's detail or a fatal error's message in the verdict's data, an
inline {"en": ..., "zh": ...} pair or a per-language comprehension) and contain English words. texts.yaml (grader/core/catalog.py) and
prompts.yaml are the homes; drills/*specs.py is drill data and not scanned.

Not prose, so not flagged: format-only strings ("{n}/{m}", "  {label}: {value}"), rich markup, single tokens (paths,
identifiers, log keys), code (tokens with `_`, `.`, `(`). Literals still waiting for their move are listed, one per
line, in tests/text_debt.txt (`path<TAB>text`): a new one fails this test, and so does a listed one that is gone (the
list only shrinks)."""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEBT = Path(__file__).parent / "text_debt.txt"

# Calls whose string arguments a learner reads.
SINK_FUNCS = {"print", "echo", "secho", "Text", "Panel", "DrillError", "ClickException", "UsageError", "BadParameter",
              "say", "status", "working"}
SINK_METHODS = {"print", "say", "_say", "echo", "secho", "write", "append", "add_row", "add_column", "rule", "prompt",
                "append_text", "insert"}
# Keys of the verdict's plain data whose values the report shows: a check row's detail, a fatal error's message, why
# a call was not checked or not timed. (A child's readiness `error` to its parent is not shown: not scanned.)
SHOWN_KEYS = {"detail", "message", "reason", "skipped"}
# drill's own errors: a bug of drill's, said to whoever fixes drill (the report shows an internal error as one).
INTERNAL = {"CatalogError", "AssertionError", "NotImplementedError", "RubricError", "RubricNameError"}
FIELD = re.compile(r"\{[^{}]*\}")
CALL = re.compile(r"[A-Za-z_][\w.]*\([^()]*\)")  # code: name(args)
MARKUP = re.compile(r"\[/?[a-z0-9 #_.=-]*\]")
WORD = re.compile(r"(?<![\w.`'/-])[A-Za-z][a-z]{1,}(?![\w(`'/.-])")


def prose(text: str) -> bool:
    """Two English words or more, once format fields, rich markup and code-like tokens are taken out."""
    text = CALL.sub(" ", MARKUP.sub(" ", FIELD.sub(" ", text)))
    words = [w for w in WORD.findall(text)]
    return len(words) >= 2


def literal_text(node) -> str | None:
    """A str constant's text, or an f-string's literal parts joined with {} where its values go."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return None


def strings_in(node):
    """Literals an expression puts into its value: constants, f-strings, concatenations, conditional branches;
    not what it passes to another call (a catalog lookup's key is no text)."""
    text = literal_text(node)
    if text is not None:
        yield node, text
    elif isinstance(node, ast.BinOp):
        yield from strings_in(node.left)
        yield from strings_in(node.right)
    elif isinstance(node, ast.IfExp):
        yield from strings_in(node.body)
        yield from strings_in(node.orelse)
    elif isinstance(node, ast.BoolOp):
        for v in node.values:
            yield from strings_in(v)


def mentions_zh(test) -> bool:
    """A condition on the learner's language: `zh`, `lang == "zh"`, `lang != "en"`."""
    for n in ast.walk(test):
        if isinstance(n, ast.Name) and n.id == "zh":
            return True
        if isinstance(n, ast.Constant) and n.value in ("zh", "en") and isinstance(test, ast.Compare):
            return True
    return False


def call_name(node: ast.Call) -> tuple[str, bool]:
    f = node.func
    if isinstance(f, ast.Attribute):
        return f.attr, True
    return getattr(f, "id", ""), False


def stray_literals(source: str, path: str = "<src>") -> list[tuple[str, int, str]]:
    """(path, line, text) of every learner-visible English literal in `source` that is not a catalog lookup."""
    tree = ast.parse(source)
    found = []

    def flag(node, text):
        if prose(text):
            found.append((path, node.lineno, text))

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name, method = call_name(node)
            if (method and name in SINK_METHODS) or (not method and name in SINK_FUNCS) or \
                    (method and name in SINK_FUNCS):
                for arg in [*node.args, *[k.value for k in node.keywords if k.arg not in ("style", "end", "sep")]]:
                    for sub, text in strings_in(arg):
                        flag(sub, text)
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and \
                call_name(node.exc)[0] not in INTERNAL:
            for arg in node.exc.args:
                for sub, text in strings_in(arg):
                    flag(sub, text)
        elif isinstance(node, ast.IfExp) and mentions_zh(node.test):  # `"..." if zh else "..."`: a text pair
            for sub, text in [*strings_in(node.body), *strings_in(node.orelse)]:
                if prose(text) or re.search(r"[\u4e00-\u9fff]", text):
                    found.append((path, sub.lineno, text))
        elif isinstance(node, ast.DictComp):  # {lang: f"..." for lang in ("en", "zh")}: one text for every language
            for sub, text in strings_in(node.value):
                flag(sub, text)
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and k.value in SHOWN_KEYS:
                    for sub, text in strings_in(v):
                        flag(sub, text)
        if isinstance(node, ast.Dict):  # an inline {"en": ..., "zh": ...}: a text outside the catalog
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
            if "en" in keys and "zh" in keys:
                for k, v in zip(node.keys, node.values):
                    if isinstance(k, ast.Constant) and k.value in ("en", "zh"):
                        for sub, text in strings_in(v):
                            if k.value == "en":
                                flag(sub, text)
                            else:  # the Chinese half: flagged whenever it says anything at all
                                if re.search(r"[\u4e00-\u9fff]", text):
                                    found.append((path, sub.lineno, text))
    return found


def scanned_files() -> list[Path]:
    files = [ROOT / "cli.py", *sorted((ROOT / "grader").rglob("*.py")), *sorted((ROOT / "coach").rglob("*.py"))]
    return [f for f in files if "__pycache__" not in f.parts]


def current() -> list[tuple[str, int, str]]:
    out = []
    for f in scanned_files():
        out += stray_literals(f.read_text(encoding="utf-8"), str(f.relative_to(ROOT)))
    return out


def key(path: str, text: str) -> str:
    return f"{path}\t{' '.join(text.split())}"


def debt() -> set[str]:
    if not DEBT.exists():
        return set()
    return {ln for ln in DEBT.read_text(encoding="utf-8").splitlines() if ln.strip() and not ln.startswith("#")}


def test_no_new_learner_visible_english_outside_the_catalog():
    found = current()
    owed = debt()
    new = [f"{p}:{line}: {text!r}" for p, line, text in found if key(p, text) not in owed]
    assert not new, ("learner-visible text written outside texts.yaml (add it to the catalog and look it up with "
                     "grader.core.catalog.text):\n" + "\n".join(new))


def test_the_debt_list_only_names_literals_still_there():
    still = {key(p, text) for p, _, text in current()}
    gone = sorted(debt() - still)
    assert not gone, "moved to the catalog (or rewritten): take these lines out of tests/text_debt.txt:\n" + \
        "\n".join(gone)


def test_the_reporting_stage_and_the_cli_owe_nothing():
    """grader/reporting/ and cli.py were migrated whole: nothing of theirs is on the debt list."""
    owed = [ln for ln in debt() if ln.startswith(("grader/reporting/", "cli.py\t", "coach/help_zh.py\t"))]
    assert not owed, owed


PLANTED = '''
import click
from grader.core import catalog

def show(lang, n):
    click.echo("the kernel wrote past the end of the output")
    console.print(f"graded {n} calls in the interpreter", style="dim")
    lines.append("  " + catalog.text("messages.sizes", lang))
    raise DrillError({"en": "no such drill here", "zh": "没有这个练习"})
    word = "行" if lang == "zh" else "line"
    click.echo(catalog.text("messages.fix_held", lang, drill="mask"))
    print(f"{n}/{n}")
    out.write("[bold]{name}[/bold]: {value}")
    path = "grader/run/child.py"
    raise DrillError({k: f"internal error: {n}" for k in ("en", "zh")})
    rows.append({"name": "file", "passed": False, "detail": f"{n} holes left in the file"})
    store._say(f"drill: the state file {n} was corrupt")
    with working("grading the file", lang):
        pass
    row = {"name": "file", "passed": False, **catalog.detail(catalog.part("check_parts.ok"))}
'''


def test_a_planted_literal_is_found_and_a_catalog_lookup_is_not():
    found = stray_literals(PLANTED, "planted.py")
    texts = [t for _, _, t in found]
    assert "the kernel wrote past the end of the output" in texts
    assert "graded {} calls in the interpreter" in texts
    assert "no such drill here" in texts and "没有这个练习" in texts and "行" in texts
    assert "internal error: {}" in texts and "{} holes left in the file" in texts
    assert "drill: the state file {} was corrupt" in texts and "grading the file" in texts
    assert len(found) == 9, found  # the lookups, the format-only string, the markup and the path are not prose
    assert {line for _, line, _ in found} == {6, 7, 9, 10, 15, 16, 17, 18}


def test_prose_is_words_not_code_or_fields():
    assert prose("no hints for {name}")
    assert not prose("{passed}/{calls}") and not prose("  {label}: {value}") and not prose("texts.yaml")
    assert not prose("tl.store(out_ptr + offs, mask=mask)") and not prose("[bold]{x}[/bold]")
