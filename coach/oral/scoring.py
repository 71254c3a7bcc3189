"""Score a typed oral answer against a checkpoint: concept matchers for its key points, known-wrong claims.

The data lives in prompts.yaml: `concepts` (named sets of synonyms and notations, both languages), `claims`
(known-wrong statements with what detects them and why they are wrong), and per checkpoint `rubric[].match` (the
alternatives that show a key point) and `wrong` (the claim ids to look for).

A match term is one of:
  "a phrase"   case-insensitive; spaces, '-' and '_' match any run of them (or none); an ASCII word edge at each end
               that is a letter or digit, and an optional plural -s/-es after a final letter; a Chinese first or last
               character must sit at a word boundary of the answer as jieba segments it (块 is not inside 尾块);
  "stem*"      the phrase followed by any word characters ("coalesc*": coalesce, coalesced, coalescing); a '*' right
               after a letter inside a phrase is a stem too ("look* right": looks right), " * " is a literal *;
  "@concept"   every term of that concept;
  "re:..."     a regular expression (over the normalised text, case-insensitive);
  "!term"      the term *denied*: "!associativ*" is "not associative", "non-associative", "不满足结合律";
A point about what does *not* happen (its English text has a negation: "extern kernels do not fuse") or with
`polarity: either` credits its plain terms whether or not they are negated ("no extern kernel" states it); its
"!terms" keep their polarity.
  [a, b, ...]  all of them in one sentence.

Scope (coach/oral/text.py): a phrase counts only where it is asserted. A key point is credited only by an
alternative asserted in its clause ("fp add is associative" does not credit "!associativ*", "alignment doesn't
matter" does not credit "alignment"); "not X but Y" asserts Y. A key point that is denied and nowhere credited is a
wrong claim (its denial is false: key points are true) when the point says `denial: wrong`: then saying any of its
alternatives the other way round ("alignment doesn't matter") fails the answer even if another alternative credits it.

A claim is found by `patterns` (regular expressions; `{@concept}` inside one stands for the concept's alternatives)
or by `concepts`: alternatives {all: [terms], none: [terms], within: sentence|clause, none_in: sentence}, every `all`
term asserted in one sentence (or clause) with no `none` term in the clauses they span (or the sentence) ({CUDA graphs} + {faster kernels} without
{launch}); not in the antecedent of a conditional ("if you floor-divide, ..."). A claim found in a sentence does not count when the
candidate denies it: a negation earlier in the same clause or inside the matched text ("program_id is not
threadIdx"), or a rebuttal after it in the sentence ("... which only holds for the guide's example"). Pattern claims
that are themselves negative statements ("there is no erf") set `negative: true` and are only cancelled by a
rebuttal.

A key point may carry its `contrary` (the point said the other way round, as concept parts in both languages: "the
GPU catches it at once" for "it fails silently", "persistent for long rows" for "persistent when the row fits"): each
alternative is a term, a list of terms asserted in one clause, or {all, none, within, none_in} as above. A contrary
found is a wrong claim, `ID:contrary-N`: "contradicts a key point: <point>", why "In fact: <point, or the item's
`fact`>", quoting the learner's sentence. An answer passes when it makes no wrong claim and shows at least `need` key points (default: half of them,
rounded up) including every `required` one; `rule()` says so in words.

A key point's `relation` (coach/oral/relations.py) says what it asserts about its concepts; a clause that says another
value is a wrong claim `ID:relation-N`. Values the answer's own arithmetic contradicts (coach/oral/arith.py:
"exp(-inf - finite) = NaN", "cdiv(100000, 1024) = 99") are wrong claims `ieee-arithmetic` / `arithmetic` on every
checkpoint. A denial offered as the point's premise or purpose ("fp8 has no range to spare, so it needs scaling",
"accumulate in fp32 so the sum doesn't lose bits") is not a denial of the point.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from coach.oral import arith as A
from coach.oral import relations as R
from coach.oral import text as T
from coach.oral.text import normalise, sentences
from grader.reporting.i18n import pick
from grader.reporting.texts import checkpoints, load
from grader.core import catalog


class RubricError(ValueError):
    """drill's own error: a rubric, concept or claim in prompts.yaml that cannot be read, said to whoever edits it
    (the CLI shows it as drill's internal error, never as the learner's)."""


class RubricNameError(RubricError, KeyError):
    """A rubric names a concept or a claim prompts.yaml does not define."""

NEGATION = re.compile(
    r"\b(?:not|no|neither|nor|never|nothing|none|isn't|aren't|wasn't|weren't|doesn't|don't|didn't|won't|can't|cannot|"
    r"shouldn't|wouldn't|unlike|instead of|rather than|wrongly|incorrectly|myth|misconception|avoid)\b"
    r"|不是|并不|并非|不对|错误|错的|而不是|不会|没有|误以为|(?<!可)以为|别再?|不要|不能说|不一定|并没有|不用|无需|"
    r"不需要|不能|不必|从不|从来不|从来没|永远不|绝不|不再|没法|无法|避免|没(?=\s*(?:更|有|用|必要))", re.I)
REBUTTAL = re.compile(
    r"\b(?:is|are|was|that's|which is|it's)\s+(?:wrong|incorrect|false|a myth|misleading|not true|"
    r"not a (?:general |real |hard )?rule)\b|\b(?:isn't|is not|not)\s+(?:true|a (?:general |real |hard )?rule|right|correct)\b|"
    r"\b(?:doesn't|does not|don't|do not|no longer)\s+(?:hold|exist)|\b(?:is|are)\s+(?:gone|removed)\b|"
    r"\bnone of (?:that|them|these|those) (?:exists?|works?)\b|\b(?:is|are)\s+(?:(?:also|just|simply|entirely|completely|all)\s+)?(?:made up|fictional|invented)\b|\bfalse\b|"
    r"\bno longer\b|\b(?:is|are|was)\s+not\s+(?:the\s+)?(?:reason|why)\b|\b(?:isn't|aren't|wasn't)\s+(?:the\s+)?(?:reason|why)\b|"
    r"\bis only (?:an?|the|its|their) (?:[\w'\-,]+\s+){0,4}(?:example|case)\b|只是指南|只是(?:一个|它自己的)?例子|"
    r"\bonly\s+(?:works|holds|true|right|applies|"
    r"for|in)\b|\bexcept\b|\bunless\b|\bis a (?:classic )?bug\b|\btoo (?:small|large|big)\b|'s wrong\b|"
    r"不对|是错的|错了|不成立|不是原因|不是主要原因|不准确|是误解|误导|只在|只对|只有在|不是(?:真的|真正的)?(?:规律|规则)|不是普遍|不存在|已经没有|除了|除非|"
    r"经典\s*bug|是\s*bug|偏小|偏大|就错|会错|有误|其实不是|实际上不是|已经没了|没有了|被移除|删掉了|是编的|是虚构的|虚构|"
    r"(?:也|都|根本|并)(?:是编的|没有|不存在)(?=\s*(?:$|[,.;:!?]))", re.I)
# A claim in the antecedent of a conditional is not asserted: "if you floor-divide instead, the tail is lost".
CONDITIONAL = re.compile(r"\b(?:if|suppose|say you)\b|要是|如果|假如|假设|若是|万一|一旦写成", re.I)
# A claim someone else makes is reported, not asserted: "the guide says the grid is capped at 48, which ...". The
# guide's own artefacts are a topic, not a speaker: "the guide's looped kernel in 8.4 is wrong" is the learner's claim.
REPORTED = re.compile(r"\b(?:the guide(?!'s\s+(?:\w+\s+){0,2}(?:kernel|code|loop|heuristics?|example)\b(?!\s+(?:says|claims)))(?:'s)?|guide \d+|some people|people (?:think|say|believe)|a common (?:myth|mistake|"
                      r"misconception)|(?:it|one) is often said)\b|指南(?:说|里|的|认为)|有人(?:说|认为|以为)|常见的?(?:误解|错误|说法)|"
                      r"很多人(?:以为|认为|觉得)", re.I)
WRONG_LABEL = re.compile(r"^\s*(?:wrong|incorrect|bogus|错误的?|错的|不存在的)[^:]{0,30}:", re.I)  # "Wrong API names: a, b"
_CLAUSE = T.CLAUSE


def _is_ascii_alnum(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


# ---------------------------------------------------------------------------------------------------------- terms

def literal_regex(term: str) -> str:
    """The regular expression for one plain (or stem*) term; see the module docstring."""
    stem = term.endswith("*")
    t = normalise(term[:-1] if stem else term).lower()
    if not t:
        raise RubricError(f"empty match term {term!r}")
    out, sep = [], False
    for i, ch in enumerate(t):
        if ch == "*" and i and t[i - 1].isascii() and t[i - 1].isalnum():  # "look* right": a stem inside a phrase
            out.append(r"[a-z0-9_]*")
            sep = False
            continue
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


class Neg(str):
    """A regular expression whose match must be denied to count (a "!term")."""


def expand(term, seen: tuple = ()) -> list:
    """A term as a list of alternatives, each a regex string (a Neg for a "!term") or a tuple of them (all in one
    sentence)."""
    if isinstance(term, list):
        parts = [expand(t, seen) for t in term]
        if any(len(p) != 1 or isinstance(p[0], tuple) for p in parts):
            # [@concept, x]: any alternative of each part, all in one sentence: one regex per part
            return [tuple(_join(p) for p in parts)]
        return [tuple(p[0] for p in parts)]
    term = str(term)
    if term.startswith("!"):
        inner = expand(term[1:], seen)
        if any(isinstance(a, tuple) for a in inner):
            raise RubricError(f"{term!r}: a denied term cannot contain [all-of] terms")
        return [Neg(a) for a in inner]
    if term.startswith("re:"):
        return [term[3:]]
    if term.startswith("@"):
        name = term[1:]
        if name in seen:
            raise RubricError(f"concept {name!r} refers to itself")
        if name not in concepts():
            raise RubricNameError(f"unknown concept @{name}")
        out = []
        for t in concepts()[name]:
            out.extend(expand(t, seen + (name,)))
        return out
    return [literal_regex(term)]


def _flat(alternatives: list) -> list[str]:
    out = []
    for a in alternatives:
        if isinstance(a, tuple):
            raise RubricError("a concept used inside [all-of] cannot itself contain [all-of] terms")
        out.append(a)
    return out


def _join(alternatives: list) -> str:
    """One regex for the alternatives of one part; denied and asserted alternatives cannot be mixed in one part."""
    flat = _flat(alternatives)
    negs = {isinstance(a, Neg) for a in flat}
    if len(negs) > 1:
        raise RubricError("a part mixes denied (!) and asserted alternatives: split it into two alternatives")
    body = "(?:" + "|".join(flat) + ")"
    return Neg(body) if negs == {True} else body


def concept_regex(name: str) -> str:
    return "(?:" + "|".join(_flat(expand("@" + name))) + ")"


_CONCEPT_REF = re.compile(r"\{@([a-z0-9-]+)\}")


def claim_regex(pattern: str) -> str:
    return _CONCEPT_REF.sub(lambda m: concept_regex(m.group(1)), pattern)


# ---------------------------------------------------------------------------------------------------------- compiled

@dataclass(frozen=True)
class Part:
    pattern: re.Pattern
    denied: bool = False          # a "!term": counts where the answer denies it
    either: bool = False          # counts asserted or denied (a plain term of a point about what does not happen)


@dataclass
class Point:
    text: dict
    alternatives: list            # tuples of Part, all in one sentence
    required: bool = False
    denial_is_wrong: bool = False  # `denial: wrong`: saying any of its alternatives the other way round is a wrong claim
    either: bool = False          # a point about what does *not* happen: a plain term counts negated or not
    relations: list = field(default_factory=list)  # what the point asserts about its concepts (coach/oral/relations.py)
    fact: dict | None = None      # why a contrary or a different relation is false, where the point alone does not say


@dataclass
class Claim:
    cid: str
    claim: dict
    why: dict
    patterns: list
    negative: bool = False
    unless: re.Pattern | None = None
    concepts: list = field(default_factory=list)   # [(parts, none patterns, in one clause, none in the sentence)]


@dataclass
class Matcher:
    cid: str
    points: list
    claims: list
    need: int


def _part(regex: str, either: bool = False) -> Part:
    neg = isinstance(regex, Neg)
    return Part(re.compile(regex, re.I), neg, either and not neg)


def _compile_alt(alt, either: bool = False) -> tuple:
    return tuple(_part(a, either) for a in alt) if isinstance(alt, tuple) else (_part(alt, either),)


def _terms_part(terms) -> tuple:
    """The parts of a claim's `all` list: one Part per term (a concept's alternatives joined)."""
    out = []
    for t in terms:
        alts = expand(t)
        out.append(_part(_join(alts)))
    return tuple(out)


def compile_claim(claim_id: str, data: dict) -> Claim:
    alts = []
    for c in data.get("concepts") or []:
        if c.get("within", "sentence") not in ("sentence", "clause"):
            raise RubricError(f"claim {claim_id}: within is 'sentence' or 'clause'")
        alts.append((_terms_part(c.get("all") or []),
                     tuple(p.pattern for p in _terms_part(c.get("none") or [])), c.get("within") == "clause",
                     c.get("none_in") == "sentence"))
        if not alts[-1][0]:
            raise RubricError(f"claim {claim_id}: a concepts alternative needs `all` terms")
    return Claim(cid=claim_id, claim=data.get("claim") or {}, why=data.get("why") or {},
                 patterns=[re.compile(claim_regex(p), re.I) for p in data.get("patterns") or []],
                 negative=bool(data.get("negative")),
                 unless=re.compile(claim_regex(data["unless"]), re.I) if data.get("unless") else None,
                 concepts=alts)


CONTRARY = catalog.section("coach.oral_contrary")  # texts.yaml


def compile_contrary(claim_id: str, point: dict, fact, alternatives: list) -> Claim:
    """A key point's contrary: the proposition said the other way round, as concept parts ("the GPU catches it at
    once" for "it fails silently"). Each alternative is a term or a list of terms, all asserted in one clause, or
    {all, none, within, none_in} as for a claim's `concepts`. Found, it fails the answer: "you said X; in fact Y", Y
    being the point (or the rubric item's `fact`, where the point alone does not say why X is false)."""
    alts = []
    for a in alternatives:
        if isinstance(a, str):
            a = [a]
        alts.append({"all": list(a), "within": "clause"} if isinstance(a, list) else dict(a))
    fact = fact or point
    data = {"claim": {lang: CONTRARY["claim"][lang].format(point=pick(point, lang)) for lang in ("en", "zh")},
            "why": {lang: CONTRARY["why"][lang].format(fact=pick(fact, lang).rstrip("。. ")) for lang in ("en", "zh")},
            "concepts": alts}
    return compile_claim(claim_id, data)



def _one_part(terms) -> Part | None:
    """One compiled part for a list of terms (any of them), as a claim's `all` term; None for none."""
    if terms is None:
        return None
    alts = [a for t in (terms if isinstance(terms, list) else [terms]) for a in expand(t)]
    if any(isinstance(a, Neg) for a in _flat(alts)):
        raise catalog.CatalogError("a relation's terms are plain: its denials are read from the answer")
    return _part(_join(alts))


def compile_relation(cid: str, data: dict) -> R.Relation:
    """A rubric item's `relation` entry: {of, is, not} (a value), {of, with, trend: same|opposite} (a trend) or
    {order: [stages]} (a sequence).
    Malformed data is drill's own bug (CatalogError)."""
    if "order" in data:
        stages = data["order"]
        if not isinstance(stages, list) or len(stages) < 2:
            raise catalog.CatalogError(f"{cid}: an order relation needs two stages or more")
        return R.Relation(of=None, order=tuple(_one_part(t) for t in stages))
    if not data.get("of"):
        raise catalog.CatalogError(f"{cid}: a relation needs `of`")
    if "trend" in data:
        if data["trend"] not in ("same", "opposite") or not data.get("with"):
            raise catalog.CatalogError(f"{cid}: a trend relation needs `with` and trend: same|opposite")
        return R.Relation(of=_one_part(data["of"]), with_=_one_part(data["with"]),
                          trend=1 if data["trend"] == "same" else -1)
    is_ = data.get("is")
    is_ = is_ if isinstance(is_, list) else [is_] if is_ else []
    not_ = data.get("not")
    # a relation that says only what it asserts gets the other end of its value's axis; a written `not` is the
    # author's narrowing ("each warp issues ..." rather than every "each warp") and stands as written
    not_ = (not_ if isinstance(not_, list) else [not_]) if not_ else opposites_of(is_)
    if not is_ or not not_:
        raise catalog.CatalogError(f"{cid}: a value relation needs `is` and `not` (or an `is` concept with an opposite)")
    return R.Relation(of=_one_part(data["of"]), is_=_one_part(is_), not_=_one_part(not_))


@lru_cache(maxsize=1)
def opposites() -> dict:
    """{concept: [its opposite concepts]} from prompts.yaml `opposites` (pairs of concept names, both ways): the axis a
    shared value lies on, so that a relation {of, is: @manual} with no `not` contradicts wherever its subject is said to
    be @auto, on every checkpoint that uses the pair, without listing the falsehoods."""
    out: dict = {}
    for pair in load().get("opposites") or []:
        if not isinstance(pair, list) or len(pair) != 2 or not all(isinstance(c, str) for c in pair):
            raise catalog.CatalogError(f"opposites: {pair!r} is not a pair of concept names")
        for a, b in (pair, pair[::-1]):
            if a not in concepts() or b not in concepts():
                raise catalog.CatalogError(f"opposites: unknown concept in {pair!r}")
            out.setdefault(a, []).append(b)
    return out


def opposites_of(terms: list) -> list:
    """The @opposite of every @concept among TERMS (a relation's `is`)."""
    return ["@" + o for t in terms if isinstance(t, str) and t.startswith("@") for o in opposites().get(t[1:], [])]


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
        text = item.get("point") or {}
        either = item.get("polarity", "either" if T.EN_NEG.search(str(text.get("en", ""))) else "asserted")
        if either not in ("either", "asserted"):
            raise RubricError(f"{cid}: polarity is 'either' or 'asserted', not {either!r}")
        points.append(Point(text=text, alternatives=[_compile_alt(a, either == "either") for a in alts],
                            required=bool(item.get("required")), denial_is_wrong=item.get("denial") == "wrong",
                            either=either == "either", fact=item.get("fact"),
                            relations=[compile_relation(cid, r) for r in item.get("relation") or []]))
    found = []
    for i, item in enumerate(cp.get("rubric") or []):
        if item.get("contrary"):
            found.append(compile_contrary(f"{cid}:contrary-{i + 1}", item.get("point") or {}, item.get("fact"),
                                          item["contrary"]))
    table = claims()
    for entry in cp.get("wrong") or []:
        if isinstance(entry, str):
            if entry not in table:
                raise RubricNameError(f"{cid}: unknown claim id {entry!r}")
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
    points: list = field(default_factory=list)        # [{"point", "found", "denied"}]
    wrong_claims: list = field(default_factory=list)  # [{"id", "claim", "why", "quote"}]
    need: int = 0
    required: list = field(default_factory=list)      # indices of the points that must be found
    empty: bool = False
    segmenter: str | None = None                      # 'jieba' or 'fallback' for an answer with Chinese, else None

    @property
    def covered(self) -> list[int]:
        return [i for i, p in enumerate(self.points) if p["found"]]

    @property
    def missing_required(self) -> list[int]:
        return [i for i in self.required if not self.points[i]["found"]]

    def to_json(self, lang: str = "en") -> dict:
        out = {"id": self.cid, "passed": self.passed, "points": self.points, "wrong_claims": self.wrong_claims,
               "need": self.need, "rule": rule(self, lang)}
        if self.segmenter:
            out["segmenter"] = self.segmenter
        return out


def _occurrences(d: T.Doc, part: Part, sent: tuple):
    """(start, end, asserted) for each match of PART in the sentence: asserted when its polarity is the part's."""
    for m in part.pattern.finditer(d.text, sent[0], sent[1]):
        if m.end() == m.start() or not T.at_word_edges(d, m.start(), m.end()):
            continue
        if part.either:
            yield m.start(), m.end(), True
            continue
        neg = T.denied(d, sent, m.start(), m.end())
        yield m.start(), m.end(), neg == part.denied


def _alt_state(d: T.Doc, alt: tuple, spans=None) -> str | None:
    """'asserted' when every part is asserted in one sentence, 'denied' when every part occurs in one sentence but one
    is said the other way round, else None (over SPANS, the answer's sentences by default)."""
    state = None
    for sent in d.spans if spans is None else spans:
        occ = [list(_occurrences(d, p, sent)) for p in alt]
        if not all(occ):
            continue
        if all(any(ok for *_, ok in o) for o in occ):
            return "asserted"
        state = "denied"
    return state


def point_state(d: T.Doc, p: Point) -> str | None:
    states = {_alt_state(d, a) for a in p.alternatives}
    return "asserted" if "asserted" in states else "denied" if "denied" in states else None


def _denied(sentence: str, m: re.Match, negative: bool) -> bool:
    clause_start = 0
    for c in _CLAUSE.finditer(sentence, 0, m.start()):
        clause_start = c.end()
    prefix = sentence[clause_start:m.start()]
    after = sentence[m.end():]
    if REBUTTAL.search(after) or WRONG_LABEL.search(sentence[:m.start()]):
        return True
    if NEGATION.search(prefix) or CONDITIONAL.search(prefix):
        return True
    return not negative and NEGATION.search(m.group(0)) is not None


@lru_cache(maxsize=4096)
def _clauses(text: str, start: int, end: int) -> tuple:
    """The non-empty clauses of the sentence [START, END) of TEXT, cut at T.CLAUSE: every claim of every checkpoint
    asks for the same sentence's clauses (a contrary-claims check over all model answers asked ~500,000 times)."""
    clauses, pos = [], start
    for c in T.CLAUSE.finditer(text, start, end):
        clauses.append((pos, c.start()))
        pos = c.end()
    clauses.append((pos, end))
    return tuple(c for c in clauses if c[1] > c[0])


def _concept_hit(d: T.Doc, alt: tuple, sent: tuple, sent_end: int | None = None) -> bool:
    """Every `all` part asserted in the sentence, no `none` term in the clauses they span, not in the antecedent of a
    conditional, not reported speech ("the guide says ..."), no rebuttal right after (SENT_END: the end of the
    sentence, where SENT is one of its clauses)."""
    parts, none, in_clause, none_in_sentence = alt
    sent_end = sent[1] if sent_end is None else sent_end
    if none_in_sentence and any(p.search(d.text, sent[0], sent[1]) for p in none):
        return False
    if in_clause:
        whole = (parts, none, False, False)
        return any(_concept_hit(d, whole, c, sent[1]) for c in _clauses(d.text, sent[0], sent[1]))
    spans = []
    for part in parts:
        first = next(((a, b) for a, b, ok in _occurrences(d, part, sent) if ok), None)  # the first asserted one
        if first is None:
            return False
        spans.append(first)
    first, last = min(a for a, _ in spans), max(b for _, b in spans)
    lo, hi = T.clause_start(d, sent[0], first), T.clause_end(d, last, sent[1])
    if any(p.search(d.text, lo, hi) for p in none):
        return False
    return asserted_here(d, sent, first, last, sent_end)


def asserted_here(d: T.Doc, sent: tuple, first: int, last: int, sent_end: int | None = None) -> bool:
    """Whether the statement spanning [FIRST, LAST) of SENT is the candidate's own: not in the antecedent of a
    conditional, not reported speech ("the guide says ..."), no rebuttal right after it."""
    sent_end = sent[1] if sent_end is None else sent_end
    lo, hi = T.clause_start(d, sent[0], first), T.clause_end(d, last, sent[1])
    if CONDITIONAL.search(d.text, lo, first) or any(m.start() < first for m in REPORTED.finditer(d.text, sent[0], sent[1])):
        return False  # (REPORTED looks past FIRST: "the guide's looped kernel" is a topic, not a speaker)
    # a rebuttal counts in the rest of the claim's clause and the next one ("..., which is wrong"), not three
    # clauses on, where it is about something else ("..., otherwise the result is wrong")
    stop = T.clause_end(d, min(hi + 1, sent_end), sent_end)
    s = d.text[sent[0]:sent[1]]
    rebuttal = next((m for m in REBUTTAL.finditer(d.text, last, stop)
                     if not CONSEQUENCE.search(d.text, max(last, m.start() - 24), m.start())), None)
    return not (rebuttal or WRONG_LABEL.search(s))


# "..., or the kernel is wrong", "否则结果就错": what goes wrong is a consequence, not a rebuttal of the statement
CONSEQUENCE = re.compile(r"\b(?:the|your|its)\s+(?:kernel|result|results|output|outputs|answer|values?|sum|code|gradient)s?\s*$|"
                         r"(?:结果|输出|kernel|梯度)\s*(?:就|会|也)?\s*$", re.I)


def find_claims(claims_: list, d: T.Doc) -> list[tuple[Claim, str]]:
    """(claim, quoted text) for each claim the answer makes (first sentence that makes it)."""
    out = []
    for claim in claims_:
        for sent in d.spans:
            s = d.text[sent[0]:sent[1]]
            if claim.unless is not None and claim.unless.search(s):
                continue
            hit = any(_concept_hit(d, alt, sent) for alt in claim.concepts)
            if not hit:
                hit = any(not _denied(s, m, claim.negative) for p in claim.patterns for m in p.finditer(s))
            if hit:
                out.append((claim, s.strip()))
                break
    return out


def _denial_quote(d: T.Doc, p: Point) -> str:
    """The first sentence where an alternative of P occurs only said the other way round ("alignment doesn't
    matter" for a point that alignment is needed), or ''."""
    for sent in d.spans:
        denied_at, asserted_at = [], []
        for a in p.alternatives:
            occ = [list(_occurrences(d, part, sent)) for part in a]
            if not all(occ):
                continue
            if all(any(ok for *_, ok in o) for o in occ):
                asserted_at.append(max(min(x for x, _, ok in o if ok) for o in occ))
            else:
                x = min(x for o in occ for x, _, ok in o if not ok)
                # "tl.sum 不会自己把 bf16 升精度", "alignment doesn't happen by itself": what does not happen on its
                # own is what the learner must do, the point asserted, not denied
                if not BY_ITSELF.search(d.text, T.clause_start(d, sent[0], x), T.clause_end(d, x, sent[1])):
                    denied_at.append(x)
        if not denied_at:
            continue
        first = min(denied_at)
        # "fp8 has no range to spare, so it needs scaling": a denial offered as the reason for the point, which the
        # sentence then asserts after a consequence connective, is the point's premise, not its denial; "it accumulates
        # in fp32 so a long sum doesn't lose precision", "fp32 累加是为了不丢精度": a denial the point's assertion is
        # said to bring about is its purpose
        if any((b > first and THEREFORE.search(d.text, first, b)) or (b < first and THEREFORE.search(d.text, b, first))
               for b in asserted_at):
            continue
        return d.text[sent[0]:sent[1]].strip()
    return ""


# what is said not to happen on its own: "X doesn't upcast by itself" leaves it to the learner (the point), not denies it
BY_ITSELF = re.compile(r"\b(?:by itself|on its own|by themselves|automatically|for you)\b|自己|自动|本身", re.I)

# what introduces a consequence of the clause before it ("..., so it needs scaling", "……，所以要缩放")
THEREFORE = re.compile(r"\b(?:so|so that|therefore|hence|thus|which is why|that's why|that is why|to avoid|to keep|to stop)\b|"
                       r"所以|因此|因而|于是|这就是为什么|为了|以免|免得|才能", re.I)


@lru_cache(maxsize=1)
def _directions() -> tuple:
    return ((R.MORE, _one_part("@more")), (R.LESS, _one_part("@less")))


def _mentions(d: T.Doc, sent: tuple, kinds) -> list:
    return R.outermost([R.Mention(a, b, ok, kind) for kind, part in kinds if part is not None
                        for a, b, ok in _occurrences(d, part, sent)])


def _overlaps(m, span: tuple) -> bool:
    return m.start < span[1] and span[0] < m.end


def rivals(m: Matcher, rel: R.Relation) -> tuple:
    """The subjects of the checkpoint's other relations of the same kind (values or trends): a value or a direction
    word binds to the nearest of them."""
    return tuple(o.of for p in m.points for o in p.relations
                 if o is not rel and o.of is not None and bool(o.trend) == bool(rel.trend))


def _item(d: T.Doc, sent: tuple, x: tuple) -> tuple:
    """The clause around span X, cut at the Chinese enumeration comma too (a list item's own predicate)."""
    lo, hi = T.clause_start(d, sent[0], x[0]), T.clause_end(d, x[1], sent[1])
    before, after = d.text.rfind("、", lo, x[0]), d.text.find("、", x[1], hi)
    return (lo if before < 0 else before + 1), (hi if after < 0 else after)


# a clause that is only its subject and a topic marker ("With torch.compile, ...", "torch.compile 的话，...", "对 CUDA
# 来说，...") sets the topic of the next clause, where its predicate is
TOPIC_REST = re.compile(r"^\s*(?:(?:with|in|for|as for|on|using|under)\s+(?:the\s+)?)?$|^\s*(?:用|对|在|至于)?$", re.I)
TOPIC_TAIL = re.compile(r"^\s*(?:'s side|的话|里面?|中|来说|这边|这里|那边|呢|时|的时候)?\s*$", re.I)
TOPIC_MARK = re.compile(r"\b(?:with|in|for|as for|on|using|under)\b|'s side|的话|里|中|来说|这边|这里|那边|呢|时|用|对|在|至于", re.I)


def _topic_clause(d: T.Doc, sent: tuple, x: tuple, span: tuple) -> tuple:
    """SPAN, the clause of subject X, extended over the next clause when it holds nothing but X as a topic."""
    lo, hi = span
    before, after = d.text[lo:x[0]], d.text[x[1]:hi]
    if hi >= sent[1] or not (TOPIC_REST.match(before) and TOPIC_TAIL.match(after)) or \
            not TOPIC_MARK.search(before + " " + after):  # a bare list item ("..., device_print, ...") is no topic
        return span
    nxt = T.CLAUSE.match(d.text, hi)
    return lo, T.clause_end(d, nxt.end() if nxt else hi + 1, sent[1])


def relation_state(d: T.Doc, rel: R.Relation, rivals: tuple = ()) -> tuple:
    """(state, quote, said) of one relation over the answer: 'contradicts' with the first sentence where the candidate
    asserts a different relation about the same concepts and the words that say it; else 'holds' where one asserts
    the point's own; else None. RIVALS: the subjects of the checkpoint's other relations (a value binds to the
    nearest subject)."""
    holds = False
    for sent in d.spans:
        if rel.order:
            stages = sorted(R.outermost([R.Mention(a, b, ok, str(i)) for i, part in enumerate(rel.order)
                                         for a, b, ok in _occurrences(d, part, sent)]), key=lambda m: m.start)
            for verdict, a, b in R.judge_order([(int(m.kind), m.start, m.end) for m in stages if m.asserted], d.text):
                if verdict == "holds":
                    holds = True
                elif asserted_here(d, sent, a, b):
                    return "contradicts", d.text[sent[0]:sent[1]].strip(), d.text[a:b].strip()
            continue
        # a subject counts unless a negator governs it; a dismissal after it ("对角线上的块不需要 mask") is its predicate
        subjects = [(a, b) for a, b, ok in _occurrences(d, rel.of, sent) if ok or not T.negated_before(d, sent[0], a)]
        if not subjects:
            continue
        clause = lambda x: _topic_clause(d, sent, x, _item(d, sent, x))  # noqa: E731
        whole = lambda x: (T.clause_start(d, sent[0], x[0]), T.clause_end(d, x[1], sent[1]))  # noqa: E731
        chinese = T.has_cjk(d.text[sent[0]:sent[1]])
        zh = lambda x: chinese  # noqa: E731  (a Chinese sentence puts its topic first: "编译期的值用 static_print")
        reach = 20 if chinese else 40  # and says as much in fewer characters
        others = [(a, b) for r in rivals for a, b, ok in _occurrences(d, r, sent) if ok]
        found = []
        if rel.trend:
            withs = [(a, b) for a, b, ok in _occurrences(d, rel.with_, sent) if ok]
            dirs = _mentions(d, sent, _directions())
            for x in subjects:
                for y in withs:
                    if x[0] < y[1] and y[0] < x[1]:
                        continue
                    dx = R.bind(x, [m for m in dirs if not _overlaps(m, y)], clause, reach, [y] + others, True, zh,
                                whole)
                    dy = R.bind(y, [m for m in dirs if not _overlaps(m, x) and m is not dx], clause, reach,
                                [x] + others, True, zh, whole)
                    verdict = R.judge_trend(rel.trend, R.direction(dx), R.direction(dy))
                    if verdict:
                        found.append((verdict, [x, y, (dx.start, dx.end), (dy.start, dy.end)]))
        else:
            values = _mentions(d, sent, ((R.IS, rel.is_), (R.NOT, rel.not_)))
            for x in subjects:
                m = R.bind(x, values, clause, reach, others, topic_first=zh, rival_clause_of=whole)
                verdict = R.judge_value(m)
                if verdict:
                    found.append((verdict, [x, (m.start, m.end)]))
                # a coordinated predicate: "FX traces the model and also does the fusion" says both of FX; a value
                # after the bound one in the subject's clause, before the next subject, is the subject's too
                stop = min([a for a, _ in subjects + others if a >= x[1]] + [clause(x)[1]])
                found += [("contradicts", [x, (v.start, v.end)]) for v in values
                          if m is not None and v is not m and v.kind == R.NOT and v.asserted
                          and v.start >= max(x[1], m.end) and v.end <= stop]
        for verdict, spans in found:
            first, last = min(a for a, _ in spans), max(b for _, b in spans)
            if verdict == "holds":
                holds = True
            elif asserted_here(d, sent, first, last):
                return "contradicts", d.text[sent[0]:sent[1]].strip(), d.text[first:last].strip()
    return ("holds" if holds else None), "", ""


_PURE_CJK = re.compile(r"[\u3400-\u9fff]{2,}")


def _literals(term) -> list[str]:
    if isinstance(term, list):
        return [w for t in term for w in _literals(t)]
    t = str(term).lstrip("!")
    return [t] if not t.startswith(("re:", "@")) and not t.endswith("*") and _PURE_CJK.fullmatch(t) else []


@lru_cache(maxsize=1)
def register_words() -> int:
    """Give jieba the data's Chinese terms as words, so it does not cut them (归约维, 访存合并)."""
    words = [w for terms in concepts().values() for w in _literals(terms)]
    def contrary_words(alts):
        return [w for a in alts or [] for w in (_literals(a) if isinstance(a, (list, str)) else
                                                _literals(a.get("all") or []) + _literals(a.get("none") or []))]

    for cp in checkpoints().values():
        for item in cp.get("rubric") or []:
            words += _literals(item.get("match") or []) + contrary_words(item.get("contrary"))
    for c in claims().values():
        for alt in c.get("concepts") or []:
            words += _literals(alt.get("all") or []) + _literals(alt.get("none") or [])
    T.add_words(sorted(set(words)))
    return len(words)


def score_text(m: Matcher, answer: str, lang: str = "en") -> Score:
    register_words()
    d = T.doc(answer)
    empty = not d.text
    points, wrong = [], []
    said = []
    for i, p in enumerate(m.points):
        state = None if empty else point_state(d, p)
        rels = [] if empty else [relation_state(d, r, rivals(m, r)) for r in p.relations]
        bad = next((r for r in rels if r[0] == "contradicts"), None)
        if bad:  # the point's concepts named with a different relation: not credited, a wrong claim
            state = "denied"
            text = pick(p.text, lang)
            said.append({"id": f"{m.cid}:relation-{i + 1}",
                         "claim": pick(RELATION["claim"], lang).format(said=bad[2], point=text),
                         "why": pick(CONTRARY["why"], lang).format(fact=pick(p.fact or p.text, lang).rstrip("。. ")),
                         "quote": bad[1]})
        points.append({"point": pick(p.text, lang), "found": state == "asserted", "denied": state == "denied"})
    if not empty:
        wrong = [{"id": c.cid, "claim": pick(c.claim, lang), "why": pick(c.why, lang), "quote": quote}
                 for c, quote in find_claims(m.claims, d)] + said
        wrong += arithmetic_slips(d, lang)
        for i, (p, pt) in enumerate(zip(m.points, points)):
            quote = _denial_quote(d, p) if p.denial_is_wrong else ""
            if quote:
                text = pick(p.text, lang)
                wrong.append({"id": f"{m.cid}:denies-point-{i + 1}",
                              "claim": pick(DENIAL["claim"], lang).format(point=text),
                              "why": pick(DENIAL["why"], lang).format(point=text), "quote": quote})
    covered = sum(1 for p in points if p["found"])
    required = [i for i, p in enumerate(m.points) if p.required]
    required_ok = all(points[i]["found"] for i in required)
    passed = not empty and not wrong and required_ok and covered >= m.need
    return Score(cid=m.cid, passed=passed, points=points, wrong_claims=wrong, need=m.need, required=required,
                 empty=empty, segmenter=None if d.tokens is None else T.segmenter())


def arithmetic_slips(d: T.Doc, lang: str) -> list[dict]:
    """Wrong claims for values the answer states that its own arithmetic contradicts (coach/oral/arith.py): IEEE
    special values (`ieee-arithmetic`) and plain numbers (`arithmetic`), on every checkpoint, since "exp(-inf - finite)
    = NaN" and "98 * 1024 = 100000" are false wherever they are said."""
    out = []
    for sent in d.spans:
        s = d.text[sent[0]:sent[1]]
        for slip in A.slips(s):
            if not asserted_here(d, sent, sent[0] + slip.start, sent[0] + slip.end):
                continue
            out.append({"id": "ieee-arithmetic",
                        "claim": pick(ARITH["claim"], lang).format(said=slip.quote),
                        "why": pick(ARITH["why"], lang).format(said=slip.said, actual=slip.actual),
                        "quote": s.strip()})
        for slip in A.numeric_slips(s):
            if not asserted_here(d, sent, sent[0] + slip.start, sent[0] + slip.end):
                continue
            expr = slip.quote.rsplit("=", 1)[0].strip()
            out.append({"id": "arithmetic",
                        "claim": pick(ARITH["num_claim"], lang).format(said=slip.quote, actual=slip.actual),
                        "why": pick(ARITH["num_why"], lang).format(expr=expr, actual=slip.actual),
                        "quote": s.strip()})
    return out


ARITH = catalog.section("coach.oral_arith")  # texts.yaml
DENIAL = catalog.section("coach.oral_denial")  # texts.yaml
RELATION = catalog.section("coach.oral_relation")  # texts.yaml


def claim_text(cid: str, claim_id: str, lang: str) -> tuple[str, str] | None:
    """(claim, why) of a wrong claim found for checkpoint CID, in LANG: a listed claim, IEEE arithmetic said wrongly
    (`ieee-arithmetic`), a key point's contrary (`CID:contrary-N`), a denied point (`CID:denies-point-N`) or a point's relation said differently
    (`CID:relation-N`, without the learner's words, which the score's own entry quotes); None for an id it does not
    know."""
    if claim_id == "ieee-arithmetic":
        return pick(ARITH["any"], lang), pick(ARITH["why_any"], lang)
    if claim_id == "arithmetic":
        return pick(ARITH["num_any"], lang), pick(ARITH["num_why_any"], lang)
    if claim_id in claims():
        data = claims()[claim_id]
        return pick(data.get("claim"), lang), pick(data.get("why"), lang)
    m = matcher(cid)
    for c in m.claims:
        if c.cid == claim_id:
            return pick(c.claim, lang), pick(c.why, lang)
    head, _, n = claim_id.rpartition(":denies-point-")
    if head == cid and n.isdigit() and 0 < int(n) <= len(m.points):
        text = pick(m.points[int(n) - 1].text, lang)
        return pick(DENIAL["claim"], lang).format(point=text), pick(DENIAL["why"], lang).format(point=text)
    head, _, n = claim_id.rpartition(":relation-")
    if head == cid and n.isdigit() and 0 < int(n) <= len(m.points) and m.points[int(n) - 1].relations:
        p = m.points[int(n) - 1]
        return (pick(CONTRARY["claim"], lang).format(point=pick(p.text, lang)),
                pick(CONTRARY["why"], lang).format(fact=pick(p.fact or p.text, lang).rstrip("。. ")))
    return None


def score(cid: str, answer: str, lang: str = "en") -> Score:
    """Score ANSWER for checkpoint CID (KeyError for an unknown id)."""
    return score_text(matcher(cid), answer, lang)


# ---------------------------------------------------------------------------------------------------------- the rule

RULE = catalog.section("coach.oral_rule")  # texts.yaml


def rule(s: Score, lang: str = "en", default_need: bool | None = None) -> str:
    """The pass rule and why S passed or failed, in one sentence: "needs 2 of 3 key points (half, rounded up) and no
    wrong claim; failed: 1 of 3 found, 2 needed"."""
    n, c = len(s.points), len(s.covered)
    if default_need is None:
        default_need = s.need == (n + 1) // 2
    req = ""
    if s.required:
        which = "、".join(s.points[i]["point"] for i in s.required) if lang == "zh" else \
            ", ".join(f"“{s.points[i]['point']}”" for i in s.required)
        req = pick(RULE["req"], lang).format(which=which)
    head = pick(RULE["need"], lang).format(need=s.need, n=n, req=req,
                                            how=pick(RULE["half" if default_need else "set"], lang))
    if s.empty:
        tail = pick(RULE["empty"], lang)
    elif s.wrong_claims:
        tail = pick(RULE["wrong"], lang).format(k=len(s.wrong_claims))
    elif s.missing_required:
        tail = pick(RULE["missing"], lang).format(which=s.points[s.missing_required[0]]["point"])
    elif c < s.need:
        tail = pick(RULE["few"], lang).format(c=c, n=n, need=s.need)
    else:
        tail = pick(RULE["passed"], lang).format(c=c, n=n)
    return head + ("；" if lang == "zh" else "; ") + tail
