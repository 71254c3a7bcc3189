"""Oral questions about the learner's own kernel, built from the grade's evidence, with numbers the tool checks.

`questions(verdict, drill)` reads `Verdict.evidence` (grader/run/runner.py `size_evidence`: per device, size and probe
the launches, bytes moved, bytes model and the lines whose loads and stores had masked-off lanes) and returns the
questions that evidence supports, e.g. "at n = 100 000, how many programs did your grid launch, and how many with
BLOCK_SIZE = 256?". Nothing is asked without the evidence for it, and nothing about a submission that failed.
`check(question, text)` finds the numbers in a typed answer ("98", "98 programs", "九十八", "1.2 MB") and compares
them with the expected ones. The texts are in prompts.yaml under `own_kernel`.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from grader.reporting.i18n import pick
from grader.reporting.texts import load

BYTES_TOLERANCE = 0.02  # a byte count within 2 % counts ("1.2 MB" for 1 200 000; "1.14 MiB" too)
SMALL = 10              # numbers below this are working ("4 bytes", "2 kernels"), never counted as a guess


# ---------------------------------------------------------------------------------------------------------- numbers

_UNITS = {"k": 1e3, "kb": 1e3, "kib": 2 ** 10, "m": 1e6, "mb": 1e6, "mib": 2 ** 20, "g": 1e9, "gb": 1e9,
          "gib": 2 ** 30, "万": 1e4, "百万": 1e6, "千万": 1e7, "亿": 1e8, "千": 1e3}
_NUMBER = re.compile(
    r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?(?:e[+-]?\d+)?)"      # 1,200,000 | 98 | 1.2 | 1.2e6
    r"(?:\s*(kib|mib|gib|kb|mb|gb|k|m|g|百万|千万|万|亿|千)(?![a-z]))?", re.I)
_SPACED = re.compile(r"(?<![\w.,])(\d{1,3}(?:[ \u00a0\u2009\u202f]\d{3})+)(?![\w.]|,\d)")   # 100 000 | 1 200 000
_CJK_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CJK_SMALL = {"十": 10, "百": 100, "千": 1000}
_CJK_BIG = {"万": 10 ** 4, "亿": 10 ** 8}
_CJK_NUMBER = re.compile(r"[零〇一二两三四五六七八九十百千万亿]+")


def cjk_number(s: str) -> int | None:
    """九十八 -> 98, 三百九十一 -> 391, 一百二十万 -> 1200000; None when S is not a number (a lone 万, say)."""
    if not any(ch in _CJK_DIGITS or ch == "十" for ch in s):
        return None
    total, section, digit = 0, 0, None
    for ch in s:
        if ch in _CJK_DIGITS:
            digit = _CJK_DIGITS[ch]
        elif ch in _CJK_SMALL:
            section += (1 if digit is None else digit) * _CJK_SMALL[ch]
            digit = None
        elif ch in _CJK_BIG:
            total = (total + section + (digit or 0)) * _CJK_BIG[ch]
            section, digit = 0, None
    return total + section + (digit or 0)


@dataclass
class Number:
    value: float
    start: int
    end: int
    optional: bool = False   # one reading among others (100 000 as one number); never 'unexplained' by itself


def numbers(text: str, spaced_is_one: bool = False) -> list[Number]:
    """Every number in TEXT (with its span): Arabic with units, spaced thousands (100 000: one optional reading
    beside its parts, or only the whole with SPACED_IS_ONE, for texts we wrote), and Chinese numerals."""
    out = []
    spaced = [(m.start(), m.end()) for m in _SPACED.finditer(text)] if spaced_is_one else []
    for m in _NUMBER.finditer(text):
        if any(s <= m.start() and m.end() <= e and (s, e) != (m.start(), m.end()) for s, e in spaced):
            continue
        v = float(m.group(1).replace(",", ""))
        if m.group(2):
            v *= _UNITS[m.group(2).lower()]
        out.append(Number(v, m.start(), m.end()))
    for m in _SPACED.finditer(text):
        out.append(Number(float(re.sub(r"\D", "", m.group(1))), m.start(), m.end(), optional=not spaced_is_one))
    for m in _CJK_NUMBER.finditer(text):
        if len(m.group(0)) < 2:
            continue  # 一, 两, 三 ... are mostly words ("一个 kernel")
        v = cjk_number(m.group(0))
        if v is not None:
            out.append(Number(float(v), m.start(), m.end()))
    return out


def close(value: float, expected: float, tolerance: float) -> bool:
    if tolerance == 0:
        return abs(value - expected) < 1e-9
    return abs(value - expected) <= tolerance * abs(expected)


# ---------------------------------------------------------------------------------------------------------- questions

@dataclass
class Part:
    label: dict                  # {'en', 'zh'}
    expected: list               # accepted values (a masked store on two lines: either)
    tolerance: float = 0.0


@dataclass
class KernelQuestion:
    qid: str                     # kernel-programs, kernel-bytes, kernel-mask
    drill: str
    text: dict
    answer: dict
    parts: list
    known: set = field(default_factory=set)   # numbers the question and the model answer mention (working, not claims)


@dataclass
class KernelScore:
    qid: str
    passed: bool
    points: list                 # [{"point", "found", "expected"}]
    unexplained: list            # numbers the answer gives that fit no part and no step of the working

    @property
    def covered(self) -> list[int]:
        return [i for i, p in enumerate(self.points) if p["found"]]


def texts() -> dict:
    return load().get("own_kernel", {}) or {}


def fmt(x) -> str:
    """100000 -> '100 000' (the way the questions write numbers); floats to 4 significant digits."""
    if isinstance(x, float) and not x.is_integer():
        return f"{x:.4g}"
    return f"{int(x):,}".replace(",", " ") if abs(x) >= 10000 else str(int(x))


def _fill(template: dict, **kw) -> dict:
    """The template in both languages; a keyword given as {'en', 'zh'} is filled in per language."""
    out = {}
    for lang in ("en", "zh"):
        values = {k: (v[lang] if isinstance(v, dict) else v) for k, v in kw.items()}
        out[lang] = str(template.get(lang, template.get("en", ""))).format(**values)
    return out


def _size_words(row: dict) -> dict:
    t = texts()
    size = row["size"]
    if isinstance(size, list):
        shape = "x".join(str(s) for s in size)
        words = _fill(t["size_shape"], shape=shape, numel=fmt(row["numel"]))
    else:
        words = _fill(t["size_n"], n=fmt(size))
    if row.get("config"):
        extra = _fill(t["with_config"], config=row["config"])
        words = {lang: words[lang] + extra[lang] for lang in words}
    return words


def _rows(verdict) -> list[dict]:
    """Evidence rows fit for questions: plain inputs (no probe), no failure, one launch with a program count.
    Interpreter rows first (they carry bytes and lanes), then by the size a candidate knows best (n = 100 000),
    then the largest."""
    rows = [r for r in getattr(verdict, "evidence", None) or []
            if not r.get("probe") and not r.get("category") and len(r.get("launches") or []) == 1
            and (r["launches"][0].get("programs") or 0) > 0 and (r.get("numel") or 0) > 0]
    return sorted(rows, key=lambda r: (r.get("device") != "cpu", r.get("size") != 100000, -(r.get("numel") or 0)))


def _known(*parts) -> set:
    out = set()
    for p in parts:
        for lang in ("en", "zh"):
            out |= {n.value for n in numbers(p[lang], spaced_is_one=True)}
    return out


def _question(qid: str, drill: str, key: str, parts: list, working: tuple = (), **kw) -> KernelQuestion:
    """WORKING: values a candidate may say on the way to the answer (an exact quotient, bytes per element)."""
    t = texts()[key]
    text = _fill(t["question"], drill=drill, **kw)
    answer = _fill(t["answer"], **kw)
    return KernelQuestion(qid=qid, drill=drill, text=text, answer=answer, parts=parts,
                          known=_known(text, answer) | set(working))


def capped_by_design(drill: str) -> bool:
    """A drill whose grid is capped on purpose (persistent, a device with a program limit): a different block size
    would not simply give cdiv(n, block) programs there."""
    try:
        import drills
        spec = drills.get_spec(drill)
    except Exception:
        return False
    limits = getattr(spec, "device_limits", None)
    return bool(getattr(spec, "max_programs", None) or getattr(spec, "max_programs_per_sm", None)
                or getattr(limits, "max_programs", None))


def flat_or_rows(row: dict) -> bool:
    """Sizes whose grid arithmetic we can state: a length n, or a 2-D shape (rows, columns). Not a matmul's M, N, K,
    whose programs are 2-D tiles of the output."""
    size = row.get("size")
    grid = row["launches"][0].get("grid") or [1]
    return (isinstance(size, int) or (isinstance(size, list) and len(size) == 2)) and len(grid) == 1


def programs_question(row: dict, drill: str) -> KernelQuestion | None:
    launch = row["launches"][0]
    programs, block, numel = launch["programs"], launch.get("block"), row["numel"]
    if not flat_or_rows(row):
        return None
    size = _size_words(row)
    t = texts()["programs"]
    if block and programs == math.ceil(numel / block) and capped_by_design(drill):   # under the cap at this size
        parts = [Part(_fill(t["part_programs"], size=size), [programs])]
        full, rest = divmod(numel, block)
        if rest == 0:
            full, rest = full - 1, block
        return _question("kernel-programs", drill, "programs_under_cap", parts, size=size, numel=fmt(numel),
                         block=fmt(block), programs=fmt(programs), full=fmt(full), rest=fmt(rest),
                         start=fmt(full * block), working=(numel / block, numel % block))
    if block and programs == math.ceil(numel / block):          # one program per tile
        alt = block // 4 if block >= 64 else block * 4   # 1024 -> 256, the guide's "change BLOCK_SIZE to 256"
        alt_programs = math.ceil(numel / alt)
        full, rest = divmod(numel, block)
        if rest == 0:
            full, rest = full - 1, block  # the last program's tile is full: n is a multiple of BLOCK_SIZE
        parts = [Part(_fill(t["part_programs"], size=size), [programs]),
                 Part(_fill(t["part_alt"], alt=alt), [alt_programs])]
        return _question("kernel-programs", drill, "programs", parts, size=size,
                         numel=fmt(numel), block=fmt(block), programs=fmt(programs), alt=fmt(alt),
                         alt_programs=fmt(alt_programs), full=fmt(full), rest=fmt(rest), start=fmt(full * block),
                         exact=fmt(numel / alt), working=(numel / block, numel / alt, numel % block, numel % alt))
    if isinstance(row["size"], list) and programs == row["size"][0] and block:   # one program per row
        rows, cols = row["size"]
        parts = [Part(_fill(texts()["programs_rows"]["part_programs"], size=size), [programs]),
                 Part(_fill(texts()["programs_rows"]["part_block"], cols=fmt(cols)), [block])]
        return _question("kernel-programs", drill, "programs_rows", parts, size=size, rows=fmt(rows), cols=fmt(cols),
                         programs=fmt(programs), block=fmt(block), off=fmt(block - cols))
    if block and programs < math.ceil(numel / block) and isinstance(row["size"], int):   # capped, looping over tiles
        tiles = math.ceil(numel / block)
        per = math.ceil(tiles / programs)
        parts = [Part(_fill(texts()["programs_capped"]["part_programs"], size=size), [programs]),
                 Part(texts()["programs_capped"]["part_tiles"], [per])]
        return _question("kernel-programs", drill, "programs_capped", parts, size=size,
                         numel=fmt(numel), block=fmt(block), programs=fmt(programs), tiles=fmt(tiles), per=fmt(per),
                         last=fmt(tiles - 1), working=(numel / block, tiles / programs))
    return None


def bytes_question(row: dict, drill: str) -> KernelQuestion | None:
    moved = row.get("bytes") or {}
    if not moved or moved.get("loaded") is None or moved.get("stored") is None:
        return None
    loaded, stored = moved["loaded"], moved["stored"]
    total = loaded + stored
    numel = row["numel"]
    size = _size_words(row)
    model = row.get("bytes_model") or {}
    per = total / numel
    if model.get("eager") and model.get("n") == numel:
        eager = model["eager"]
        t = texts()["bytes_eager"]
        parts = [Part(t["part_yours"], [total], BYTES_TOLERANCE), Part(t["part_eager"], [eager], BYTES_TOLERANCE)]
        return _question("kernel-bytes", drill, "bytes_eager", parts, size=size,
                         loaded=fmt(loaded), stored=fmt(stored), total=fmt(total), per=fmt(per), numel=fmt(numel),
                         eager=fmt(eager), eager_per=fmt(eager / numel), ratio=f"{eager / total:.3g}",
                         mb=f"{total / 1e6:.3g}", eager_mb=f"{eager / 1e6:.3g}",
                         working=(4, 2, per / 4, eager / numel / 4, total / 2 ** 20, eager / 2 ** 20))
    t = texts()["bytes"]
    return _question("kernel-bytes", drill, "bytes", [Part(t["part_yours"], [total], BYTES_TOLERANCE)],
                     size=size, loaded=fmt(loaded), stored=fmt(stored),
                     total=fmt(total), per=fmt(per), numel=fmt(numel), mb=f"{total / 1e6:.3g}",
                     working=(4, 2, per / 4, total / 2 ** 20))


def mask_question(row: dict, drill: str) -> KernelQuestion | None:
    stores = row.get("masked_stores") or []
    launch = row["launches"][0]
    block, numel, programs = launch.get("block"), row["numel"], launch["programs"]
    if not stores or not block or not flat_or_rows(row):
        return None
    lines = sorted({s["line"] for s in stores if s.get("line")})
    lanes = stores[0].get("lanes")
    if not lines or lanes is None:
        return None
    size = _size_words(row)
    rest = numel % block
    tiles = math.ceil(numel / block)
    if not isinstance(row["size"], list) or programs != row["size"][0]:   # flat tiles: one partial tile at the end
        if rest == 0 or lanes != block - rest:
            return None   # the lanes do not tell one story (another layout); ask nothing rather than something wrong
        t = texts()["mask"]
        parts = [Part(t["part_line"], lines), Part(t["part_lane"], [rest])]
        return _question("kernel-mask", drill, "mask", parts, size=size,
                         line=" / ".join(str(x) for x in lines), numel=fmt(numel), block=fmt(block),
                         tiles=fmt(tiles), last=fmt(tiles - 1), start=fmt((tiles - 1) * block), lane=fmt(rest),
                         lane_minus=fmt(rest - 1), lanes=fmt(lanes), end=fmt(numel - 1), working=(numel / block,))
    rows, cols = row["size"]                                               # one program per row
    off = block - cols
    if off <= 0 or lanes != rows * off:
        return None
    t = texts()["mask_rows"]
    parts = [Part(t["part_line"], lines), Part(_fill(t["part_lanes"], cols=fmt(cols)), [off])]
    return _question("kernel-mask", drill, "mask_rows", parts, size=size,
                     line=" / ".join(str(x) for x in lines), rows=fmt(rows), cols=fmt(cols), block=fmt(block),
                     off=fmt(off), lanes=fmt(lanes))


BUILDERS = (("kernel-bytes", bytes_question), ("kernel-mask", mask_question), ("kernel-programs", programs_question))


def questions(verdict, drill: str) -> list[KernelQuestion]:
    """Every question the evidence of a passing VERDICT supports (at most one of each kind), bytes first."""
    if verdict is None or not getattr(verdict, "passed", False):
        return []
    rows = _rows(verdict)
    out = []
    for qid, build in BUILDERS:
        for row in rows:
            q = build(row, drill)
            if q is not None:
                out.append(q)
                break
    return out


# ---------------------------------------------------------------------------------------------------------- checking

def check(q: KernelQuestion, text: str, lang: str = "en") -> KernelScore:
    """Each part is found when a number in TEXT equals one of its expected values (bytes within 2 %). A number that
    fits no part and is not a step of the working (a number of the question or of the model answer) is
    'unexplained': several guesses for one part do not pass."""
    found_numbers = numbers(text or "")
    used: set = set()
    points = []
    for part in q.parts:
        hit = next((n for n in found_numbers for e in part.expected if close(n.value, e, part.tolerance)), None)
        if hit is not None:
            used.add((hit.start, hit.end))
        points.append({"point": pick(part.label, lang), "found": hit is not None,
                       "expected": " / ".join(fmt(e) for e in part.expected)})
    covered_spans = [(n.start, n.end) for n in found_numbers
                     if (n.start, n.end) in used or any(close(n.value, k, 0 if float(k).is_integer() else 0.01)
                                                       for k in q.known)
                     or any(close(n.value, e, p.tolerance) for p in q.parts for e in p.expected)]
    unexplained = []
    for n in found_numbers:
        if n.optional or n.value < SMALL:
            continue
        inside = any(s <= n.start and n.end <= e for s, e in covered_spans)
        if not inside and n.value not in unexplained:
            unexplained.append(n.value)
    passed = all(p["found"] for p in points) and not unexplained
    return KernelScore(qid=q.qid, passed=passed, points=points, unexplained=[fmt(v) for v in unexplained])
