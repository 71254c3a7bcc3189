"""Rates of every oral set with the scorer on PYTHONPATH: right answers passing and wrong answers passing, per
language. The sets are tests/test_checkpoints_corpus.py's SETS (folders of per-checkpoint files and the blind rounds'
lists); extra list files ([{id, lang, expect, text}]) may be named on the command line. docs/oral.md quotes it.

    PYTHONPATH=. python benchmarks/oral_rates.py [extra.yaml ...] [--misses]
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_checkpoints_corpus import LANGS, SETS, load, rates  # noqa: E402


def main(argv: list[str]) -> None:
    show = "--misses" in argv
    sets = dict(SETS)
    for extra in (a for a in argv if not a.startswith("--")):
        sets[Path(extra).stem] = Path(extra)
    print("| set | right en | right zh | wrong passing en | wrong passing zh |")
    print("|---|---|---|---|---|")
    for name, path in sets.items():
        if not path.exists():
            continue
        corpus = load(path)
        cells, misses = [], []
        for kind in ("right", "wrong"):
            for lang in LANGS:
                r = rates(corpus, (lang,))
                p, n = r[kind]
                cells.append(f"{p}/{n}" if n else "—")
                misses += [m for m in r["misses"] if m[2] == kind]
        print(f"| `{name}` | " + " | ".join(cells) + " |")
        if show:
            for cid, lang, kind, answer in misses:
                print(f"    {cid} {lang} {kind}: {answer}")


if __name__ == "__main__":
    main(sys.argv[1:])
