"""Drill names as a learner types them: `vector_add`, `Mask`, `vector-add.py` are the drill they mean; a typo
gets "did you mean" (difflib, as git and cargo do), in the learner's language."""
from __future__ import annotations

import difflib

import drills
from coach.errors import DrillError
from grader.core import catalog

T = catalog.section("coach.names")  # texts.yaml


def normalise(name: str) -> str:
    name = name.strip().lower().replace("_", "-").replace(" ", "-")
    return name[:-3] if name.endswith(".py") else name


def match(name: str, known: list[str] | None = None) -> str | None:
    """The drill NAME means (exact, or the same once case, underscores and a .py are set aside), else None."""
    known = list(drills.names()) if known is None else known
    if name in known:
        return name
    by_norm = {normalise(k): k for k in known}
    return by_norm.get(normalise(name))


def suggestions(name: str, known: list[str] | None = None) -> list[str]:
    known = list(drills.names()) if known is None else known
    by_norm = {normalise(k): k for k in known}
    close = difflib.get_close_matches(normalise(name), list(by_norm), n=3, cutoff=0.6)
    close += [k for n, k in by_norm.items() if normalise(name) and (n.startswith(normalise(name)) or
                                                                    normalise(name) in n) and n not in close]
    out = []
    for c in close:
        c = by_norm.get(c, c)
        if c not in out:
            out.append(c)
    return out[:3]


def unknown_texts(name: str, known: list[str] | None = None) -> dict:
    near = suggestions(name, known)
    texts = {}
    for lang in ("en", "zh"):
        close = T["close"][lang].format(names=T["or"][lang].join(f"`{n}`" for n in near)) if near else ""
        texts[lang] = T["unknown"][lang].format(name=name, close=close)
    return texts


def resolve(name: str, lang: str | None = None, as_json: bool | None = None) -> str:
    """The drill's name, or a DrillError (exit 2) that says which drills are close."""
    found = match(name)
    if found is None:
        raise DrillError(unknown_texts(name), lang=lang, as_json=as_json)
    return found
