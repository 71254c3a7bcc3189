"""prompts.yaml: each drill's title, task, hints and checkpoint ids, and the checkpoints themselves."""
from __future__ import annotations

from functools import lru_cache

from grader.core import yamlfile
from grader.core.spec import ROOT

PROMPTS = ROOT / "prompts.yaml"


@lru_cache(maxsize=1)
def load() -> dict:
    return yamlfile.load(PROMPTS) or {}


def drill_texts(name: str) -> dict:
    return load().get("drills", {}).get(name, {})


def checkpoints() -> dict:
    return load().get("checkpoints", {})


def checkpoints_for(name: str) -> list[tuple[str, dict]]:
    ids = drill_texts(name).get("checkpoints", [])
    table = checkpoints()
    return [(cid, table[cid]) for cid in ids if cid in table]
