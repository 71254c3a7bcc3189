"""texts.yaml, the one home of what drill says to a learner: every entry in both languages with the same fields, every
key the code asks for present, and a missing one drill's own error (never an English fallback)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from grader.core import catalog
from grader.core.catalog import CatalogError

ROOT = Path(__file__).resolve().parent.parent
CODE = [ROOT / "cli.py", *sorted((ROOT / "grader").rglob("*.py")), *sorted((ROOT / "coach").rglob("*.py"))]


def entries(node=None, path=""):
    """(dotted key, entry) for every leaf of the catalog; a leaf that is not an entry comes back as it is."""
    node = catalog.load() if node is None else node
    if catalog.is_entry(node) or not isinstance(node, dict):
        yield path, node
        return
    for k, v in node.items():
        yield from entries(v, f"{path}.{k}" if path else str(k))


ALL = list(entries())


def test_the_catalog_is_not_empty_and_every_leaf_is_an_entry():
    assert len(ALL) > 250
    bad = [key for key, e in ALL if not catalog.is_entry(e)]
    assert not bad, f"leaves that are not {{en, zh}} entries: {bad}"


@pytest.mark.parametrize("key,e", ALL, ids=[k for k, _ in ALL])
def test_every_entry_has_both_languages_with_the_same_fields(key, e):
    for lang in catalog.LANGS:
        assert e.get(lang), f"{key} has no {lang} text"
    en, zh = e["en"], e["zh"]
    if isinstance(en, list):  # columns of a table: one per column in each language
        assert isinstance(zh, list) and len(en) == len(zh), key
        pairs = list(zip(en, zh))
    else:
        pairs = [(en, zh)]
    for a, b in pairs:
        assert isinstance(a, str) and isinstance(b, str), key
        assert catalog.fields(a) == catalog.fields(b), f"{key}: en fields {catalog.fields(a)}, zh {catalog.fields(b)}"
        for lang, s in (("en", a), ("zh", b)):
            s.format_map({f: 1 for f in catalog.fields(s)})  # a stray brace would be drill's crash at runtime


def literal_keys():
    """Every literal key the code hands the catalog: catalog.text/both/entry/table("..."), i18n.t("...") (a
    `messages.` key) and report.phrase("...") (a `report_words.` key)."""
    found = []
    for path in CODE:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)):
                continue
            fn = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            key = node.args[0].value
            if fn in ("text", "both", "entry", "part") and isinstance(node.func, ast.Attribute) and \
                    getattr(node.func.value, "id", "") == "catalog":
                found.append((path.name, node.lineno, key, "entry"))
            elif fn in ("table", "section") and getattr(getattr(node.func, "value", None), "id", "") in ("catalog", "texts"):
                found.append((path.name, node.lineno, key, "table"))
            elif fn == "t" and isinstance(node.func, ast.Name):
                found.append((path.name, node.lineno, f"messages.{key}", "entry"))
            elif fn == "phrase" and isinstance(node.func, ast.Name):  # grader/reporting/report.py
                found.append((path.name, node.lineno, f"report_words.{key}", "entry"))
    return found


def test_every_literal_key_in_the_code_is_in_the_catalog():
    keys = literal_keys()
    assert len(keys) > 50
    missing = []
    for name, line, key, kind in keys:
        try:
            catalog.entry(key) if kind == "entry" else catalog.table(key)
        except CatalogError as e:
            missing.append(f"{name}:{line}: {e}")
    assert not missing, "\n".join(missing)


def check_names_written():
    """The check names the grader writes as literals: {"name": "...", ...} rows and the CHECKS tables."""
    names = set()
    for path in sorted((ROOT / "grader").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict):
                for k, v in zip(node.keys, node.values):
                    if isinstance(k, ast.Constant) and k.value == "name" and isinstance(v, ast.Constant) and \
                            any(isinstance(k2, ast.Constant) and k2.value == "passed" for k2 in node.keys):
                        names.add(v.value)
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and ("CHECK" in t.id or "ROWS" in t.id)
                                                    for t in node.targets):
                for sub in ast.walk(node.value):
                    if isinstance(sub, ast.Tuple) and sub.elts:
                        strs = [e.value for e in sub.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
                        names.update(s for s in strs if " " in s)
                if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                    names.add(node.value.value)
    return names


def test_every_check_the_grader_writes_has_its_name_in_the_catalog():
    from grader.run.runner import CHECKS, MEMORY_CHECK, SPEC_CHECKS

    names = check_names_written() | {n for n, _ in CHECKS} | {n for _, n, _ in SPEC_CHECKS} | {MEMORY_CHECK}
    names |= {"import", "entry", "grade", "device", "run"}  # a fatal stage's check row is named by the stage
    assert len(names) > 20
    missing = sorted(n for n in names if n not in catalog.table("checks"))
    assert not missing, missing


def test_a_missing_key_language_or_field_is_drills_own_error_not_english():
    with pytest.raises(CatalogError):
        catalog.text("messages.no-such-key", "en")
    with pytest.raises(CatalogError):
        catalog.text("messages.pass", "fr")
    with pytest.raises(CatalogError):
        catalog.text("messages.elapsed", "zh")  # {s} not given
    with pytest.raises(CatalogError):
        catalog.entry("diagnoses.mask")  # a section, not a text
    assert catalog.text("messages.elapsed", "zh", s=1.25) == "评测用时 1.2 秒"
    assert catalog.both("messages.pass") == {"en": "PASS", "zh": "通过"}


def test_a_catalog_entry_without_its_chinese_fails_the_lookup(monkeypatch):
    fake = {"messages": {"half": {"en": "only English"}}}
    monkeypatch.setattr(catalog, "load", lambda: fake)
    with pytest.raises(CatalogError, match="no zh"):
        catalog.text("messages.half", "en")
    assert [k for k, e in entries(fake) if not e.get("zh")] == ["messages.half"]


def test_check_details_the_grader_writes_come_back_in_chinese():
    from grader.reporting.i18n import check_detail

    en = catalog.text("check_details.calls_failed", "en", bad=3, calls=9, size=4097, device="cpu")
    assert en == "3/9 calls failed, first at size 4097 on cpu"
    assert check_detail(en, "zh") == "9 次调用中 3 次失败，首次在尺寸 4097（cpu）"
    assert check_detail("9/9 calls", "zh") == "9/9 次调用"
    assert check_detail("killed after 12 s on cuda", "zh") == "12 秒后被终止（cuda）"
    assert check_detail("something else entirely", "zh") == "something else entirely"


def commands():
    import cli

    return [("drill", cli.main), *cli.main.commands.items()]


@pytest.mark.parametrize("lang", catalog.LANGS)
def test_every_command_and_option_has_its_help_in_both_languages(lang):
    import click

    import cli
    from coach.help_zh import help_text

    ctx = click.Context(cli.main, info_name="drill")
    for name, cmd in commands():
        assert help_text(name, lang).strip(), name
        for p in cmd.get_params(ctx):
            if isinstance(p, click.Option):
                key = "help" if p is cmd.get_help_option(ctx) else p.name
                assert help_text(name, lang, key).strip(), (name, key)


@pytest.mark.parametrize("name", [n for n, _ in commands()])
def test_help_in_chinese_has_no_english_sentence_of_drills_own(name, monkeypatch):
    """`--help` under zh: the command's text and every option's from the catalog's zh; no English help of drill's
    left (click's own `[default: ...]` and the option names stay)."""
    import click
    from click.testing import CliRunner

    import cli
    from coach.help_zh import help_text

    monkeypatch.setenv("DRILL_LANG", "zh")
    args = ["--help"] if name == "drill" else [name, "--help"]
    out = CliRunner().invoke(cli.main, args, catch_exceptions=False, terminal_width=400).output
    cmd = cli.main if name == "drill" else cli.main.commands[name]
    assert help_text(name, "zh").split("\n")[0] in out
    ctx = click.Context(cli.main, info_name="drill")
    for p in cmd.get_params(ctx):
        if isinstance(p, click.Option):
            key = "help" if p is cmd.get_help_option(ctx) else p.name
            assert help_text(name, "en", key) not in out, (name, key)
    for sentence in ("Show this message and exit", "Language: en or zh", "Options:", "Usage:"):
        assert sentence not in out, (name, sentence)


def _named_mistakes():
    """Every Mistake and GradMistake any drill's spec carries (forward, gradient, probes' nested specs)."""
    import dataclasses

    import drills
    from grader.core.spec import GradMistake, Mistake

    seen, found = set(), []

    def walk(obj, drill):
        if id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, (Mistake, GradMistake)):
            found.append((drill, obj))
        elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            for f in dataclasses.fields(obj):
                walk(getattr(obj, f.name), drill)
        elif isinstance(obj, (list, tuple)):
            for x in obj:
                walk(x, drill)
    for spec in drills.SPECS:
        walk(spec, spec.name)
    return found


def test_every_named_mistake_has_its_chinese_name():
    """A report in Chinese names the learner's mistake in Chinese: every known mistake of every drill carries name_zh."""
    found = _named_mistakes()
    assert len(found) > 80  # the walk reaches the drills' mistakes (83 forward, the gradients' beside them)
    missing = [(drill, m.name) for drill, m in found if not any("\u4e00" <= ch <= "\u9fff" for ch in m.name_zh)]
    assert not missing, missing


def test_a_matched_mistake_is_named_in_the_learners_language():
    import drills
    from grader.reporting.report import explain
    from grader.run.runner import Verdict

    m = drills.get_spec("attention").mistakes[1]  # no 1/sqrt(D) scale
    v = Verdict(drill="attention", file="x.py", device="cpu", passed=False, diagnosis="scale",
                detail={"wrong": 10, "numel": 100, "mistake": {"name": m.name, "category": m.category,
                                                               "name_zh": m.name_zh}})
    what_en, _ = explain(v, "en")
    what_zh, _ = explain(v, "zh")
    assert m.name in what_en
    assert m.name_zh in what_zh and m.name not in what_zh


def test_a_probe_named_in_words_is_labelled_in_chinese_and_code_stays_code():
    import drills
    from grader.reporting.report import probe_name, sizes_row

    spec = drills.get_spec("attention")
    cases = [{"size": (1, 2, 100, 64), "probe": "large scores", "device": "cpu", "failed": False},
             {"size": (2, 2, 17, 32), "probe": "q, k, v = x.transpose(1, 2)", "device": "cpu", "failed": False}]
    zh, en = sizes_row(cases, spec, "zh").plain, sizes_row(cases, spec, "en").plain
    assert "1x2x100x64(分数很大)" in zh and "large scores" not in zh
    assert "(q, k, v = x.transpose(1, 2))" in zh  # code is the same in both languages
    assert "1x2x100x64(large scores)" in en
    assert probe_name(None, "x30", "zh") == "x30"  # no spec: the name as given


def test_every_probe_named_in_words_has_its_chinese_label():
    """A probe whose name is words (not code such as `b = w.t()`, `padding=1`, `x30`) carries name_zh."""
    import re

    import drills

    for spec in drills.SPECS:
        for p in getattr(spec, "probes", None) or ():
            code_like = re.search(r"[=_().]|^x\d+$|^(float16|bfloat16|causal)$", p.name)
            assert code_like or p.name_zh, (spec.name, p.name)


def test_every_yaml_file_drill_reads_parses_the_same_with_libyamls_parser_and_pythons():
    """grader/core/yamlfile.py reads drill's YAML with libyaml's C parser where PyYAML has it: the data must be what
    PyYAML's pure-Python safe loader gives, file by file (a file the two read differently would be a different
    drill on a machine without libyaml)."""
    import yaml

    from grader.core import yamlfile

    files = [ROOT / "texts.yaml", ROOT / "prompts.yaml", *sorted((ROOT / "drills" / "bugs").glob("*.yaml"))]
    assert len(files) > 10 and all(f.exists() for f in files)
    for f in files:
        python = yamlfile.load(f, loader=yaml.SafeLoader)
        assert python, f.name
        assert yamlfile.load(f) == python, f.name
    if getattr(yaml, "CSafeLoader", None) is not None:
        assert yamlfile.SAFE_LOADER is yaml.CSafeLoader
    assert yamlfile.load(f) is not yamlfile.load(f)  # read each time: the callers cache
