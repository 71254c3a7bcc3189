"""The learner's language, and the report's tables as the catalog holds them (texts.yaml, grader/core/catalog.py).

`lang` comes from --lang, else DRILL_LANG, else LANG. `pick` is for a drill's own data (prompts.yaml, a spec's
mistake texts), which may leave a language out; the catalog never does.
"""
from __future__ import annotations

import os
import re
import string

from grader.core import catalog
from grader.core.catalog import CatalogError

LANGS = catalog.LANGS


def resolve_lang(flag: str | None = None) -> str:
    for value in (flag, os.environ.get("DRILL_LANG"), os.environ.get("LANG")):
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def pick(text, lang: str) -> str:
    """A drill's own {'en': ..., 'zh': ...} mapping (or a plain string) in the wanted language, falling back to
    English: drill data (prompts.yaml, drills/*specs.py) may lack a language. Catalog entries always have both."""
    if isinstance(text, dict):
        return text.get(lang) or text.get("en") or ""
    return text or ""


M = catalog.table("messages")          # one line of the report each: t(key, lang, **fields)
DIAGNOSES = catalog.table("diagnoses")  # per diagnosis key: what is wrong, and the fix
CHECKS = catalog.table("checks")        # check names: the JSON keeps the English name


def t(key: str, lang: str, **kw) -> str:
    return catalog.text(f"messages.{key}", lang, **kw)


def check_name(name: str, lang: str) -> str:
    """A check's name (the English one the verdict's JSON keeps) in the learner's language."""
    if not catalog.is_entry(CHECKS.get(name)) or not CHECKS[name].get(lang):
        raise CatalogError(f"texts.yaml has no {lang} text for the check {name!r} (under `checks`)")
    return CHECKS[name][lang]


def _pattern(template: str) -> re.Pattern:
    """The English template of a check detail as a regex whose groups are its fields (one word each): "{passed}/{calls}
    calls" matches "2/9 calls" with passed=2, calls=9."""
    out = "^"
    for literal, name, _, _ in string.Formatter().parse(template):
        out += re.escape(literal)
        if name:
            out += f"(?P<{name}>\\S+?)"
    return re.compile(out + "$")


def check_detail(detail: str, lang: str) -> str:
    """A check's detail (written in English by the grader, from `check_details`) in the learner's language."""
    if lang == "en":
        return detail
    for key, e in catalog.table("check_details").items():
        m = _pattern(e["en"]).match(detail)
        if m:
            return catalog.text(f"check_details.{key}", lang, **m.groupdict())
    return detail
