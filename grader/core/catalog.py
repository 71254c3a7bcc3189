"""texts.yaml: every message drill says to a learner, keyed, in English and Chinese.

`text(key, lang, **fields)` is one entry formatted; `both(key, **fields)` the {"en": ..., "zh": ...} pair (for an
error raised before the language is known); `table(key)` a section as plain data. A key is a dotted path
("messages.pass", "diagnoses.mask.fix"). A missing key, a missing language or a missing format field is drill's own
bug (`CatalogError`), never an English fallback: tests/test_catalog.py checks every entry and every literal key.
"""
from __future__ import annotations

import re
import string
from functools import lru_cache

from grader.core import yamlfile
from grader.core.spec import ROOT

CATALOG = ROOT / "texts.yaml"
LANGS = ("en", "zh")


class CatalogError(LookupError):
    """drill's internal error: texts.yaml lacks a key, a language, or a format field a caller passes."""


@lru_cache(maxsize=1)
def load() -> dict:
    return yamlfile.load(CATALOG) or {}


def table(key: str) -> dict:
    """The section at `key` (a mapping of entries or of sections)."""
    node = load()
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            raise CatalogError(f"texts.yaml has no `{key}` (no `{part}`)")
        node = node[part]
    return node


def section(key: str) -> dict:
    """A section of entries, each checked for both languages, as {name: {"en": ..., "zh": ...}} (a list entry, such
    as a table's columns, as a tuple): for a module that formats its own entries."""
    out = {}
    for name, node in table(key).items():
        e = _checked(f"{key}.{name}", node)
        out[name] = {lang: tuple(v) if isinstance(v, list) else v for lang, v in e.items()}
    return out


def is_entry(node) -> bool:
    """An entry is a mapping whose keys are languages (its values: a string, or a list of strings for columns)."""
    return isinstance(node, dict) and bool(node) and set(node) <= set(LANGS)


def entry(key: str) -> dict:
    return _checked(key, table(key))


def _checked(key: str, node) -> dict:
    if not is_entry(node):
        raise CatalogError(f"texts.yaml's `{key}` is a section, not a text")
    missing = [lang for lang in LANGS if not node.get(lang)]
    if missing:
        raise CatalogError(f"texts.yaml's `{key}` has no {'/'.join(missing)} text")
    return node


def fields(template: str) -> set[str]:
    """The named format fields of a template ("{n} calls" -> {"n"}); `{{` is a literal brace."""
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(template) if name}


def text(key: str, lang: str, **kw):
    """Entry `key` in `lang`, formatted with kw (every entry is a format template: a literal brace is written `{{`);
    a list entry, such as a table's columns, comes back as a tuple."""
    if lang not in LANGS:
        raise CatalogError(f"no language {lang!r} (drill speaks {', '.join(LANGS)})")
    value = entry(key)[lang]
    if isinstance(value, list):
        return tuple(value)
    try:
        return value.format(**kw)
    except (KeyError, IndexError) as e:
        raise CatalogError(f"texts.yaml's `{key}` ({lang}) needs the field {e}") from None


def both(key: str, **kw) -> dict:
    """{"en": ..., "zh": ...}: entry `key` formatted in each language."""
    return {lang: text(key, lang, **kw) for lang in LANGS}


def part(key: str, **kw) -> list:
    """One piece of a text kept as data: [key, {field: str}] (JSON-safe, formatted again in any language)."""
    text(key, "en", **kw)  # a missing key or field fails here, where the text is made
    return [key, {k: str(v) for k, v in kw.items()}]


def joined(parts: list, lang: str) -> str:
    """Pieces made by `part`, formatted in `lang` and joined."""
    return "".join(text(key, lang, **kw) for key, kw in parts)


def detail(*parts: list) -> dict:
    """A check row's detail: the English the verdict's JSON keeps (`detail`) and its pieces (`detail_parts`), which
    the report formats in the learner's language."""
    return {"detail": joined(list(parts), "en"), "detail_parts": list(parts)}


class TextError(Exception):
    """A learner's usage error raised below coach/ (a file that cannot be read, no GPU): `texts` holds it in both
    languages, str() is the English. The CLI shows it as one line in the learner's language."""

    def __init__(self, key: str, **kw):
        self.texts = both(key, **kw)
        super().__init__(self.texts["en"])


@lru_cache(maxsize=None)
def _pattern(template: str, text_fields: tuple) -> re.Pattern:
    """An English template as a regex whose groups are its fields: one word each, or, for a field named in
    text_fields, the shortest text (maybe none) that lets the whole line match ("{passed}/{calls} calls" matches
    "2/9 calls")."""
    out = "^"
    for literal, name, _, _ in string.Formatter().parse(template):
        out += re.escape(literal)
        if name:
            out += f"(?P<{name}>.*?)" if name in text_fields else f"(?P<{name}>\\S+?)"
    return re.compile(out + "$", re.S)


# Sections read back by from_english, and their fields that may hold several words (every other field: one word).
TEXT_FIELDS = {"check_details": ("label", "why", "portable", "call", "asked", "shape", "capacity", "limit", "names",
                                 "code"), "progress": ("label", "at", "probe")}


def from_english(section: str, english: str, lang: str, depth: int = 2) -> str | None:
    """English that crossed a process as a plain string (a check's detail, a progress line), made from one of the
    templates of `section`, in `lang`: None when no template of the section made it. A field that is itself one of
    the section's texts (a phrase put into a sentence) is translated too, `depth` levels down."""
    for key, e in table(section).items():
        m = _pattern(e["en"], TEXT_FIELDS.get(section, ())).match(english)
        if m:
            kw = m.groupdict()
            if depth > 0:
                kw = {k: v and from_english(section, v, lang, depth - 1) or v for k, v in kw.items()}
            return text(f"{section}.{key}", lang, **kw)
    return None
