"""The learner's language, and the report's tables as the catalog holds them (texts.yaml, grader/core/catalog.py).

`lang` comes from --lang, else DRILL_LANG, else LANG. `pick` is for a drill's own data (prompts.yaml, a spec's
mistake texts), which may leave a language out; the catalog never does.
"""
from __future__ import annotations

import os

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


def mistake_name(mistake: dict, lang: str) -> str:
    """A known mistake's name in the learner's language (the spec's name_zh), English when a drill lacks it; "" for
    no mistake."""
    return (mistake.get("name_zh") if lang == "zh" else None) or mistake.get("name") or ""


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


def row_detail(row: dict, lang: str) -> str:
    """A check row's detail in the learner's language: its pieces (catalog.detail) when it has them, else its English
    matched against `check_details`."""
    if row.get("detail_parts"):  # a field may hold English from elsewhere (a timing method): matched the same way
        return "".join(catalog.text(key, lang, **{k: check_detail(v, lang) for k, v in kw.items()})
                       for key, kw in row["detail_parts"])
    return check_detail(str(row.get("detail") or ""), lang)


def check_detail(detail: str, lang: str) -> str:
    """A check's detail (written in English by the grader, from `check_details`) in the learner's language."""
    if lang == "en":
        return detail
    got = catalog.from_english("check_details", detail, lang)
    return detail if got is None else got
