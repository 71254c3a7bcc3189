"""A solution file with its module-level constants changed (benchmark helper): to time a candidate's schedules
(`load_with_constants`) and to write the winning schedule out as a complete file (`write_with_constants`) that can be
graded and copied to solutions/ as it is.

A constant is a top-level assignment `NAME = value` (on one line or several; a comment after it is dropped when it
is rewritten); values are any Python literal (int, bool, tuple).
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

_loaded = 0


def load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_with_constants(path: Path, entry: str, consts: dict):
    """`entry` of a fresh copy of the module at `path`, its module-level constants set from `consts`."""
    global _loaded
    _loaded += 1
    mod = load_module(Path(path), f"with_constants_{_loaded}")
    for k, v in consts.items():
        if not hasattr(mod, k):
            raise KeyError(f"{path} has no constant {k}")
        setattr(mod, k, v)
    return getattr(mod, entry)


def with_constants_text(text: str, consts: dict) -> str:
    """`text` with each top-level assignment `NAME = ...` of `consts` (one line or several) replaced by
    `NAME = repr(value)`."""
    import ast
    for k, v in consts.items():
        node = next((n for n in ast.parse(text).body if isinstance(n, ast.Assign) and len(n.targets) == 1
                     and isinstance(n.targets[0], ast.Name) and n.targets[0].id == k), None)
        if node is None:
            raise KeyError(f"no top-level assignment `{k} = ...`")
        lines = text.splitlines(keepends=True)
        lines[node.lineno - 1:node.end_lineno] = [f"{k} = {v!r}  # set by benchmarks/constants.py\n"]
        text = "".join(lines)
    return text


def write_with_constants(path: Path, dst: Path, consts: dict) -> Path:
    dst = Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(with_constants_text(Path(path).read_text(), consts))
    return dst


def parse_spec(text: str) -> tuple[Path, dict]:
    """'FILE:NAME=VALUE,NAME=VALUE' (values Python literals without commas) -> (path, {NAME: value})."""
    import ast
    path, _, consts = text.partition(":")
    pairs = [c.split("=", 1) for c in consts.split(",") if c]
    return Path(path), {k.strip(): ast.literal_eval(v.strip()) for k, v in pairs}
