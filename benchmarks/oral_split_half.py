"""Split-half validation of a change to the oral scorer: what it fixed and broke, per set, per language, and on each
half of a development set (its checkpoints sorted by name, the first half A, the rest B).

Build a mechanism from the misses of one half, measure it on the other half's misses, and on every other set's
answers (a right answer it fails, a wrong one it passes, is a cost). docs/oral.md quotes it.

    PYTHONPATH=. python benchmarks/oral_split_half.py DEV.yaml --save before.json     # with the scorer before
    PYTHONPATH=. python benchmarks/oral_split_half.py DEV.yaml --against before.json  # with the scorer after
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from coach.oral import scoring  # noqa: E402
from test_checkpoints_corpus import LANGS, SETS, load  # noqa: E402


def verdicts(dev: Path) -> dict:
    """{"set|checkpoint|lang|kind|i": [passed, answer, wrong claim ids]} for every set and DEV (as "dev")."""
    sets = dict(SETS, dev=dev)
    out = {}
    for name, path in sets.items():
        if not path.exists():
            continue
        for cid, data in load(path).items():
            for lang in LANGS:
                for kind in ("right", "wrong"):
                    for i, answer in enumerate((data.get(lang) or {}).get(kind) or []):
                        s = scoring.score(cid, answer, lang)
                        out[f"{name}|{cid}|{lang}|{kind}|{i}"] = [s.passed, answer, [w["id"] for w in s.wrong_claims]]
    return out


def halves(keys) -> dict:
    cids = sorted({k.split("|")[1] for k in keys if k.startswith("dev|")})
    a = set(cids[:(len(cids) + 1) // 2])
    return {c: "A" if c in a else "B" for c in cids}


def table(v: dict) -> None:
    half = halves(v)
    count: Counter = Counter()
    for k, (passed, *_) in v.items():
        name, cid, lang, kind, _ = k.split("|")
        group = f"dev {half[cid]}" if name == "dev" else name
        count[(group, lang, kind, "n")] += 1
        count[(group, lang, kind, "pass")] += passed
    print("| set | right en | right zh | wrong passing en | wrong passing zh |")
    print("|---|---|---|---|---|")
    for group in sorted({g for g, *_ in count}, key=lambda g: (g.startswith("dev"), g)):
        cells = [f"{count[(group, lang, kind, 'pass')]}/{count[(group, lang, kind, 'n')]}" if count[(group, lang, kind, "n")]
                 else "—" for kind in ("right", "wrong") for lang in LANGS]
        print(f"| `{group}` | " + " | ".join(cells) + " |")


def main(argv: list[str]) -> None:
    dev = Path(argv[0])
    v = verdicts(dev)
    if "--save" in argv:
        Path(argv[argv.index("--save") + 1]).write_text(json.dumps(v, ensure_ascii=False), encoding="utf-8")
    table(v)
    if "--against" in argv:
        base = json.loads(Path(argv[argv.index("--against") + 1]).read_text(encoding="utf-8"))
        half = halves(v)
        changed = Counter()
        for k in sorted(v):
            if k not in base or base[k][0] == v[k][0]:
                continue
            name, cid, lang, kind, _ = k.split("|")
            good = v[k][0] == (kind == "right")
            group = f"dev {half[cid]}" if name == "dev" else name
            changed[(group, "fixed" if good else "broke")] += 1
            print(f"    {'FIXED' if good else 'BROKE'} {group} {cid} {lang} {kind} {v[k][2] or ''}: {v[k][1][:140]}")
        print("changed:", dict(changed) or "nothing")


if __name__ == "__main__":
    main(sys.argv[1:])
