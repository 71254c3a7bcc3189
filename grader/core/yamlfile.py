"""Reading drill's own YAML files (texts.yaml, prompts.yaml, the bug and slow-version catalogs): PyYAML's safe
loader, through libyaml's C parser where PyYAML was built with it (the same data, about 5x faster: prompts.yaml is
~0.5 s of CPU with the pure-Python parser, and every CLI process and cold grading child reads it or texts.yaml).
tests/test_catalog.py checks that both parsers give equal data for every such file."""
from __future__ import annotations

from pathlib import Path

import yaml

SAFE_LOADER = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader


def load(path: Path | str, loader=None):
    """The file's data (None for an empty file), as yaml.safe_load gives it."""
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=loader or SAFE_LOADER)  # noqa: S506 - a safe loader, C or Python
