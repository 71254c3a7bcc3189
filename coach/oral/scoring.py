"""Score a typed oral answer against a checkpoint: concept matchers for its key points, known-wrong claims.

The data lives in prompts.yaml: `concepts` (named sets of synonyms and notations, both languages), `claims`
(known-wrong statements with the patterns that detect them and why they are wrong), and per checkpoint
`rubric[].match` (the alternatives that show a key point) and `wrong` (the claim ids to look for).

A match term is one of:
  "a phrase"   case-insensitive; spaces, '-' and '_' match any run of them (or none); an ASCII word edge at each end
               that is a letter or digit, and an optional plural -s/-es after a final letter;
  "stem*"      the phrase followed by any word characters ("coalesc*": coalesce, coalesced, coalescing);
  "@concept"   every term of that concept;
  "re:..."     a regular expression (over the normalised text, case-insensitive);
  [a, b, ...]  all of them in one sentence.
A claim pattern is a regular expression; `{@concept}` inside it stands for the concept's alternatives.

A claim found in a sentence does not count when the candidate denies it: a negation earlier in the same clause or
inside the matched text ("program_id is not threadIdx"), or a rebuttal after it in the sentence ("... which only
holds for the guide's example"). Claims that are themselves negative statements ("there is no erf") set
`negative: true` and are only cancelled by a rebuttal. An answer passes when it makes no wrong claim and shows at
least `need` key points (default: half of them, rounded up) including every `required` one.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from grader.reporting.i18n import pick
from grader.reporting.texts import checkpoints, load

# ---------------------------------------------------------------------------------------------------------- text

_REPLACE = {"×": "x", "−": "-", "–": "-", "≥": ">=", "≤": "<=", "’": "'", "‘": "'", "“": '"', "”": '"', "·": "*",
            "∞": "inf"}
_SENTENCE = re.compile(r"(?<=[.!?])\s+|[。\n]+")
_CLAUSE = re.compile(r"[,:;(\[]|\bbut\b|\bhowever\b|但是|但|不过|然而|其实|实际上", re.I)

NEGATION = re.compile(
    r"\b(?:not|no|neither|nor|never|nothing|none|isn't|aren't|wasn't|weren't|doesn't|don't|didn't|won't|can't|cannot|"
    r"shouldn't|wouldn't|unlike|instead of|rather than|wrongly|incorrectly|myth|misconception|avoid)\b"
    r"|不是|并不|并非|不对|错误|错的|而不是|不会|没有|误以为|(?<!可)以为|别再?|不要|不能说|不一定|并没有|不用|无需|"
    r"不需要|不能|不必|从不|从来不|从来没|永远不|绝不|不再|没法|无法|避免|没(?=\s*(?:更|有|用|必要))", re.I)
REBUTTAL = re.compile(
    r"\b(?:is|are|was|that's|which is|it's)\s+(?:wrong|incorrect|false|a myth|misleading|not true|"
    r"not a (?:general |real |hard )?rule)\b|\b(?:isn't|is not|not)\s+(?:true|a (?:general |real |hard )?rule|right|correct)\b|"
    r"\b(?:doesn't|does not|don't|do not|no longer)\s+(?:hold|exist)|\b(?:is|are)\s+(?:gone|removed)\b|"
    r"\bnone of (?:that|them|these|those) (?:exists?|works?)\b|\b(?:is|are) (?:made up|fictional|invented)\b|\bfalse\b|"
    r"\bno longer\b|\b(?:is|are|was)\s+not\s+(?:the\s+)?(?:reason|why)\b|\b(?:isn't|aren't|wasn't)\s+(?:the\s+)?(?:reason|why)\b|"
    r"\bonly\s+(?:works|holds|true|right|applies|"
    r"for|in)\b|\bexcept\b|\bunless\b|\bis a (?:classic )?bug\b|\btoo (?:small|large|big)\b|'s wrong\b|"
    r"不对|是错的|错了|不成立|不是原因|不是主要原因|不准确|是误解|误导|只在|只对|只有在|不是(?:真的|真正的)?(?:规律|规则)|不是普遍|不存在|已经没有|除了|除非|"
    r"经典\s*bug|是\s*bug|偏小|偏大|就错|会错|有误|其实不是|实际上不是|已经没了|没有了|被移除|删掉了|是编的|是虚构的|虚构", re.I)
WRONG_LABEL = re.compile(r"^\s*(?:wrong|incorrect|bogus|错误的?|错的|不存在的)[^:]{0,30}:", re.I)  # "Wrong API names: a, b"


def normalise(text: str) -> str:
    """NFKC (full-width punctuation to ASCII), a few symbols to ASCII, one space between words. Case is kept (for
    quoting the answer back); every pattern is compiled case-insensitive."""
    t = unicodedata.normalize("NFKC", text or "")
    for a, b in _REPLACE.items():
        t = t.replace(a, b)
    return " ".join(t.split())


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s.strip()]


def _is_ascii_alnum(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


# ---------------------------------------------------------------------------------------------------------- terms

def literal_regex(term: str) -> str:
    """The regular expression for one plain (or stem*) term; see the module docstring."""
    stem = term.endswith("*")
    t = normalise(term[:-1] if stem else term).lower()
    if not t:
        raise ValueError(f"empty match term {term!r}")
    out, sep = [], False
    for ch in t:
        if ch in " -_":
            if not sep:
                out.append(r"[\s\-_]*")
            sep = True
            continue
        sep = False
        out.append(re.escape(ch))
    body = "".join(out)
    start = r"(?<![a-z0-9_])" if _is_ascii_alnum(t[0]) else ""
    if stem:
        end = r"[a-z0-9_]*"
    elif t[-1].isascii() and t[-1].isalpha():
        end = r"(?:s|es)?(?![a-z0-9_])"
    elif _is_ascii_alnum(t[-1]):
        end = r"(?![a-z0-9_])"
    else:
        end = ""
    return start + body + end


@lru_cache(maxsize=1)
def concepts() -> dict:
    return load().get("concepts", {}) or {}


@lru_cache(maxsize=1)
def claims() -> dict:
    return load().get("claims", {}) or {}


def expand(term, seen: tuple = ()) -> list:
    """A term as a list of alternatives, each a regex string or a tuple of regex strings (all in one sentence)."""
    if isinstance(term, list):
        parts = [expand(t, seen) for t in term]
        if any(len(p) != 1 or isinstance(p[0], tuple) for p in parts):
            # [@concept, x]: any alternative of each part, all in one sentence: one regex per part
            return [tuple("(?:" + "|".join(_flat(p)) + ")" for p in parts)]
        return [tuple(p[0] for p in parts)]
    term = str(term)
    if term.startswith("re:"):
        return [term[3:]]
    if term.startswith("@"):
        name = term[1:]
        if name in seen:
            raise ValueError(f"concept {name!r} refers to itself")
        if name not in concepts():
            raise KeyError(f"unknown concept @{name}")
        out = []
        for t in concepts()[name]:
            out.extend(expand(t, seen + (name,)))
        return out
    return [literal_regex(term)]


def _flat(alternatives: list) -> list[str]:
    out = []
    for a in alternatives:
        if isinstance(a, tuple):
            raise ValueError("a concept used inside [all-of] cannot itself contain [all-of] terms")
        out.append(a)
    return out


def concept_regex(name: str) -> str:
    return "(?:" + "|".join(_flat(expand("@" + name))) + ")"


_CONCEPT_REF = re.compile(r"\{@([a-z0-9-]+)\}")


def claim_regex(pattern: str) -> str:
    return _CONCEPT_REF.sub(lambda m: concept_regex(m.group(1)), pattern)


# ---------------------------------------------------------------------------------------------------------- compiled

@dataclass
class Point:
    text: dict
    alternatives: list            # compiled: re.Pattern or tuple of re.Pattern
    required: bool = False


@dataclass
class Claim:
    cid: str
    claim: dict
    why: dict
    patterns: list
    negative: bool = False
    unless: re.Pattern | None = None


@dataclass
class Matcher:
    cid: str
    points: list
    claims: list
    need: int


def _compile_alt(alt):
    if isinstance(alt, tuple):
        return tuple(re.compile(a, re.I) for a in alt)
    return re.compile(alt, re.I)


def compile_claim(claim_id: str, data: dict) -> Claim:
    return Claim(cid=claim_id, claim=data.get("claim") or {}, why=data.get("why") or {},
                 patterns=[re.compile(claim_regex(p), re.I) for p in data.get("patterns") or []],
                 negative=bool(data.get("negative")),
                 unless=re.compile(claim_regex(data["unless"]), re.I) if data.get("unless") else None)


def matcher_for(cid: str, cp: dict) -> Matcher:
    """Compile one checkpoint's rubric and claims. Raises (KeyError, ValueError, re.error) on bad data."""
    points = []
    for item in cp.get("rubric") or []:
        terms = item.get("match")
        if terms is None:  # an entry written before concept matchers: its keywords, as plain terms
            kws = item.get("keywords") or {}
            terms = [w for lang in ("en", "zh") for w in (kws.get(lang) or [])] if isinstance(kws, dict) else kws
        alts = []
        for t in terms or []:
            alts.extend(expand(t))
        points.append(Point(text=item.get("point") or {}, alternatives=[_compile_alt(a) for a in alts],
                            required=bool(item.get("required"))))
    found = []
    table = claims()
    for entry in cp.get("wrong") or []:
        if isinstance(entry, str):
            if entry not in table:
                raise KeyError(f"{cid}: unknown claim id {entry!r}")
            found.append(compile_claim(entry, table[entry]))
        else:  # an inline claim
            found.append(compile_claim(entry.get("id", f"{cid}-inline"), entry))
    need = cp.get("need")
    if need is None:
        need = (len(points) + 1) // 2
    return Matcher(cid=cid, points=points, claims=found, need=int(need))


@lru_cache(maxsize=None)
def matcher(cid: str) -> Matcher:
    return matcher_for(cid, checkpoints()[cid])


# ---------------------------------------------------------------------------------------------------------- scoring

@dataclass
class Score:
    cid: str
    passed: bool
    points: list = field(default_factory=list)        # [{"point", "found"}]
    wrong_claims: list = field(default_factory=list)  # [{"id", "claim", "why", "quote"}]
    need: int = 0

    @property
    def covered(self) -> list[int]:
        return [i for i, p in enumerate(self.points) if p["found"]]

    def to_json(self) -> dict:
        return {"id": self.cid, "passed": self.passed, "points": self.points, "wrong_claims": self.wrong_claims}


def _alt_found(alt, text: str, sents: list[str]) -> bool:
    if isinstance(alt, tuple):
        return any(all(p.search(s) for p in alt) for s in sents)
    return alt.search(text) is not None


def _denied(sentence: str, m: re.Match, negative: bool) -> bool:
    clause_start = 0
    for c in _CLAUSE.finditer(sentence, 0, m.start()):
        clause_start = c.end()
    prefix = sentence[clause_start:m.start()]
    after = sentence[m.end():]
    if REBUTTAL.search(after) or WRONG_LABEL.search(sentence[:m.start()]):
        return True
    if NEGATION.search(prefix):
        return True
    return not negative and NEGATION.search(m.group(0)) is not None


def find_claims(claims_: list, text: str) -> list[tuple[Claim, str]]:
    """(claim, quoted text) for each claim the answer makes (first sentence that makes it)."""
    out = []
    for claim in claims_:
        for s in sentences(text):
            if claim.unless is not None and claim.unless.search(s):
                continue
            hit = None
            for p in claim.patterns:
                for m in p.finditer(s):
                    if not _denied(s, m, claim.negative):
                        hit = m
                        break
                if hit:
                    break
            if hit:
                out.append((claim, s.strip()))
                break
    return out


def score_text(m: Matcher, answer: str, lang: str = "en") -> Score:
    text = normalise(answer)
    sents = sentences(text)
    points = []
    for p in m.points:
        found = bool(text) and any(_alt_found(a, text, sents) for a in p.alternatives)
        points.append({"point": pick(p.text, lang), "found": found})
    wrong = [{"id": c.cid, "claim": pick(c.claim, lang), "why": pick(c.why, lang), "quote": quote}
             for c, quote in find_claims(m.claims, text)] if text else []
    covered = sum(1 for p in points if p["found"])
    required_ok = all(pt["found"] for pt, p in zip(points, m.points) if p.required)
    passed = bool(text) and not wrong and required_ok and covered >= m.need
    return Score(cid=m.cid, passed=passed, points=points, wrong_claims=wrong, need=m.need)


def score(cid: str, answer: str, lang: str = "en") -> Score:
    """Score ANSWER for checkpoint CID (KeyError for an unknown id)."""
    return score_text(matcher(cid), answer, lang)
