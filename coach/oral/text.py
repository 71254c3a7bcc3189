"""The text side of scoring a typed answer: normalising, sentences and clauses, Chinese word boundaries (jieba), and
whether a matched phrase is asserted or denied where it stands.

A phrase is *denied* when a negator governs it: one before it in its clause, close enough and with no scope breaker
in between ("not associative", "no need to cast", "不需要对齐", "不是 BLOCK_SIZE 的倍数"; but "no mask means out of
bounds" and "不加 mask 会越界" assert the out-of-bounds part: "means" and 会 start a new scope), or a dismissal right
after it ("alignment doesn't matter", "对齐无所谓"). "not only"/"不仅" affirm. Chinese negators are jieba tokens, so
不同, 不断, 不少, 不过 and 不满 (a partial tile) are not negations; English ones are word-edged regular expressions.
"""
from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from grader.core import catalog

_REPLACE = {"×": "x", "−": "-", "–": "-", "≥": ">=", "≤": "<=", "’": "'", "‘": "'", "“": '"', "”": '"', "·": "*",
            "∞": "inf"}
# m旧 / m_新 / l旧: the Chinese subscripts engineers type, as the ASCII ones (m_old, m_new) the matchers know
_NOTATION = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z])_?(旧|新)")
_NOTATION_WORD = {"旧": "old", "新": "new"}
# the statistics as candidates write them in a formula: x̂ (x + U+0302) as xhat, σ⁻¹ / 1/σ as rstd, a lone μ as mean
# (not μs, microseconds)
_FORMULA = [(re.compile(r"([A-Za-z])\u0302"), r"\1hat"), (re.compile(r"σ\s*\^?\s*-\s*1(?![0-9])|1\s*/\s*σ"), "rstd"),
            (re.compile(r"(?<![A-Za-z0-9_])μ(?![A-Za-z])"), "mean")]
_SENTENCE = re.compile(r"(?<=[.!?])\s+|[。\n]+")
CLAUSE = re.compile(r"[,:;(\[]|\bbut\b|\bhowever\b|\bwhereas\b|\binstead\b|但是|但|不过|然而|其实|实际上|而是", re.I)

_CJK = re.compile(r"[\u3400-\u9fff]")

# English negators (word-edged); "not only / not just" affirm and are removed before the search.
EN_NEG = re.compile(
    r"\b(?:(?:there(?:'s| is) )?no (?:rule|requirement|reason|law|guarantee) that|(?:it's |it is )?not true that|"
    r"non|not|no|never|neither|nor|nothing|none|cannot|without|isn't|aren't|wasn't|weren't|doesn't|don't|didn't|"
    r"won't|can't|shouldn't|wouldn't|needn't|hardly|rather than|instead of|unlike)\b", re.I)
EN_AFFIRM = re.compile(r"\bnot\s+(?:only|just|merely|simply)\b|\bno\s+(?:more|less)\s+than\b|\bnot\s+until\b", re.I)
# A negator's scope ends at these (the negated part is over, a new predicate starts).
EN_BREAK = re.compile(
    r"\b(?:means?|meaning|so|then|therefore|thus|because|since|which|that|and|or|if|when|whenever|while|otherwise|"
    r"else|leads?\s+to|causes?|results?\s+in|you|they|we|gets?|gives?)\b", re.I)
ZH_NEG = frozenset("不 没 没有 无 无需 无须 不用 不必 不需要 不是 并非 并不 并没有 从不 从来不 从未 绝不 不会 不能 别 "
                   "不要 未 非 毫无 不再 没法 无法 不可 不可能 而不是 不算 不太 不一定 未必 从没 "
                   "用不了 用不上 用不到 做不到 做不了 跑不了 看不到 看不见 找不到".split())  # X不了 / X不到: cannot X
ZH_AFFIRM = frozenset("不仅 不只 不光 不单 不但 不止".split())
# jieba glues some negated verbs into one word (不崩, 不写): a word starting with 不/没 negates unless it is one of these.
ZH_NOT_NEG = frozenset("不了 不同 不断 不少 不过 不错 不久 不停 不管 不论 不如 不足 不等 不得不 不满 不然 不禁 不妨 没错".split())
ZH_BREAK = frozenset("就 会 则 的话 导致 所以 因为 因此 时 时候 才 而且 并且 然后 结果 要 得 造成 还会 还 就会 会导致".split())
# A dismissal right after the phrase: "X doesn't matter", "X 无所谓".
POST_DENY = re.compile(
    r"^\W{0,3}(?:(?:is|are|does|do|really)\s+)*(?:(?:not|n't|never)\s+(?:matter|needed|required|necessary|important|"
    r"relevant|help|an issue|a concern|a thing)|doesn't matter|don't matter|does not matter|do not matter|"
    r"(?:doesn't|does not|don't|do not)\s+(?:really\s+|actually\s+|much\s+)?matter|is irrelevant|are irrelevant|"
    r"(?:isn't|aren't|is not|are not|wasn't)\s+(?:really\s+|actually\s+|strictly\s+)?(?:required|needed|necessary|"
    r"important|a requirement|mandatory)|is optional|are optional|is a myth|is false|is wrong|is not true|isn't true)\b"
    r"|^\W{0,3}(?:其实|真的|根本|完全|倒|也|都|并)*\s*(?:不重要|无所谓|没关系|无关紧要|没必要|没用|可有可无|是错的|不对|不成立|不存在|不需要|不是必须|并非必须|"
    r"不必要|非必须|不是必需|不是必要)(?=$|[\s,.;:!?)]|的|了|啊|吧)", re.I)
EN_WINDOW, ZH_WINDOW = 40, 14  # characters a negator may stand before the phrase it governs


class SegmenterMissing(RuntimeError):
    """jieba is not installed: drill's own install problem, never the learner's."""


@lru_cache(maxsize=1)
def _jieba():
    try:
        import jieba
    except ImportError as e:
        said = catalog.both("coach.oral_text.no_jieba")  # both languages: raised before the learner's is known
        raise SegmenterMissing(f"{said['en']} / {said['zh']}") from e
    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    for w in _user_words:
        jieba.add_word(w, freq=None)
    return jieba


_user_words: list[str] = []


def add_words(words) -> None:
    """Terms of the matcher data that jieba should keep whole (a term like 归约维 or 访存合并 is one word to us)."""
    new = [w for w in words if w not in _user_words]
    _user_words.extend(new)
    _fallback_words.cache_clear()
    if _jieba.cache_info().currsize:
        for w in new:
            _jieba().add_word(w)


def segmenter() -> str:
    """'jieba', or 'fallback' where jieba is not installed (the GPU image has no jieba): Chinese is then cut by
    longest match against the matchers' own words and the negators, a coarser segmentation (README: docs/oral.md)."""
    try:
        _jieba()
        return "jieba"
    except SegmenterMissing:
        return "fallback"


@lru_cache(maxsize=1)
def _fallback_words() -> tuple[frozenset, int]:
    words = {w for w in _user_words if _CJK.match(w)} | ZH_NEG | ZH_NOT_NEG | ZH_AFFIRM | ZH_BREAK | _FALLBACK_EXTRA
    words = frozenset(w for w in words if len(w) > 1 and all(_CJK.match(c) for c in w))
    return words, max((len(w) for w in words), default=1)


_FALLBACK_EXTRA = frozenset("不满足 满足 不在 在于 不少 之后 之前 以后 以前 如果 因为 所以 但是 而是 其实 实际上 一定 可能 需要 "
                            "不需要 必须 没有 不是 还是 就是 只是 但是".split())
_TOKEN = re.compile(r"[A-Za-z0-9_]+|\s+|.", re.S)


def _fallback_tokenize(text: str) -> list:
    """(start, end, word) like jieba.tokenize: runs of CJK cut by forward longest match over the known words, other
    characters as jieba gives them (ASCII words, spaces, single symbols)."""
    words, longest = _fallback_words()
    out, i, n = [], 0, len(text)
    while i < n:
        if _CJK.match(text[i]):
            for k in range(min(longest, n - i), 1, -1):
                if text[i:i + k] in words:
                    out.append((i, i + k, text[i:i + k]))
                    i += k
                    break
            else:
                out.append((i, i + 1, text[i]))
                i += 1
            continue
        m = _TOKEN.match(text, i)
        out.append((i, m.end(), m.group(0)))
        i = m.end()
    return out


def tokenize(text: str) -> list:
    try:
        return [(a, b, w) for w, a, b in _jieba().tokenize(text)]
    except SegmenterMissing:
        return _fallback_tokenize(text)


def normalise(text: str) -> str:
    """NFKC (full-width punctuation to ASCII), a few symbols to ASCII, one space between words. Case is kept (for
    quoting the answer back); every pattern is compiled case-insensitive."""
    t = unicodedata.normalize("NFKC", text or "")
    for a, b in _REPLACE.items():
        t = t.replace(a, b)
    t = _NOTATION.sub(lambda m: m.group(1) + "_" + _NOTATION_WORD[m.group(2)], t)
    for pattern, word in _FORMULA:
        t = pattern.sub(word, t)
    return " ".join(t.split())


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s.strip()]


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


@dataclass
class Doc:
    """A normalised answer: its sentences as (start, end) spans, and its jieba tokens (start, end, word) where it has
    Chinese (None when it has none: every position is then a word boundary for Chinese terms)."""
    text: str
    spans: list
    tokens: list | None
    bounds: frozenset | None

    @property
    def sents(self) -> list[str]:
        return [self.text[a:b] for a, b in self.spans]


def doc(text: str) -> Doc:
    text = normalise(text)
    spans, pos = [], 0
    for m in _SENTENCE.finditer(text):
        if text[pos:m.start()].strip():
            spans.append((pos, m.start()))
        pos = m.end()
    if text[pos:].strip():
        spans.append((pos, len(text)))
    tokens = bounds = None
    if has_cjk(text):
        tokens = tokenize(text)
        bounds = frozenset(x for a, b, _ in tokens for x in (a, b))
    return Doc(text, spans, tokens, bounds)


def at_word_edges(d: Doc, start: int, end: int) -> bool:
    """A match must not cut a Chinese word that jieba found across its edge: 不满 does not match in 不满足 (满足 starts
    inside it). A match inside a longer word is kept (累加 in 累加器, 一块 in 哪一块): Chinese compounds. So is a cut
    where the rest of the word is itself one of the data's words: 每个线程的寄存器 in 每个线程的寄存器越多, where jieba
    (given 寄存器越多 as a word) glued 越多 on."""
    if d.tokens is None or start >= end:
        return True
    for a, b, _ in d.tokens:
        if a >= end:
            break
        if b <= start:
            continue
        crosses_start = a < start < b < end
        crosses_end = start < a < end < b
        known = _fallback_words()[0]
        if crosses_start and _CJK.match(d.text[start]) and d.text[a:start] not in known:
            return False
        if crosses_end and _CJK.match(d.text[end - 1]) and d.text[end:b] not in known:
            return False
    return True


def clause_start(d: Doc, sent_start: int, pos: int) -> int:
    start = sent_start
    for c in CLAUSE.finditer(d.text, sent_start, pos):
        start = c.end()
    return start


def clause_end(d: Doc, pos: int, sent_end: int) -> int:
    c = CLAUSE.search(d.text, pos, sent_end)
    return c.start() if c else sent_end


def _zh_negated(d: Doc, lo: int, hi: int) -> bool:
    """A Chinese negator token in [lo, hi) with no scope breaker after it."""
    if d.tokens is None:
        return False
    neg = False
    prev = ""
    for a, b, w in d.tokens:
        if b <= lo or a < lo:
            prev = w
            continue
        if a >= hi:
            break
        if _a_not_a(prev, w):  # 要不要, 用不用, 有没有: a question ("whether to"), not a negation
            pass
        elif w in ("不了", "不到", "不上") and len(prev) == 1 and _CJK.match(prev) and b <= hi:
            neg = True  # 用 + 不了 (cannot use), jieba's split of a verb and its potential complement
        elif b <= hi and (w in ZH_NEG or (w[0] in "不没" and len(w) > 1 and w not in ZH_NOT_NEG
                                          and w not in ZH_AFFIRM and w not in ZH_BREAK)):
            neg = True
        elif w in ZH_BREAK or w in ZH_AFFIRM:
            neg = False
        prev = w
    return neg


def _a_not_a(prev: str, w: str) -> bool:
    """The A-not-A question, 要不要 / 用不用 / 能不能 / 有没有 / 需不需要: the negator token repeats the verb before it."""
    return len(w) > 1 and w[0] in "不没" and bool(prev) and _CJK.match(prev) is not None and w[1:].startswith(prev)


# A preposition negates only its object: "without a mask the last tile writes past the end" denies the mask, not the
# writing. Its scope ends where the clause's subject starts, a determiner or pronoun after the object's first word.
EN_PREP_NEG = re.compile(r"\b(?:without|unlike)\b", re.I)
EN_NEW_NP = re.compile(r"\S+\s+(?:(?:\S+\s+){0,3}?)\b(?:the|a|an|its|their|each|every|this|these|those|it|you|we|they|"
                       r"there|all|any|no|nothing|every)\b", re.I)


def _en_negated(scope: str) -> bool:
    scope = EN_AFFIRM.sub(" ", scope)
    last = None
    for m in EN_NEG.finditer(scope):
        last = m
    if last is None:
        return False
    if EN_PREP_NEG.fullmatch(last.group(0)) and EN_NEW_NP.match(scope, last.end() + 1 if scope[last.end():last.end() + 1].isspace() else last.end()):
        return False
    return EN_BREAK.search(scope, last.end()) is None


def _glued_negator(d: Doc, start: int) -> bool:
    """jieba glued a negator to the phrase that starts at START (不是近似, 不改变结果): the part of START's word before
    it is, or ends with, a negator."""
    if d.tokens is None:
        return False
    for a, b, w in d.tokens:
        if a < start < b:
            head = d.text[a:start]
            return head in ZH_NEG or any(head.endswith(n) for n in ZH_NEG)
        if a >= start:
            break
    return False


def negated_before(d: Doc, sent_start: int, start: int) -> bool:
    """Whether a negator governs the text that starts at START (see the module docstring)."""
    cs = clause_start(d, sent_start, start)
    if _glued_negator(d, start) or _zh_negated(d, max(cs, start - ZH_WINDOW), start):
        return True
    if d.text[max(0, cs - 7):cs].lower() == "instead" and re.match(r"\s*of\s*$", d.text[cs:start], re.I):
        return True  # "O(S) instead of O(S^2)": "instead" ends a clause, but "instead of" denies what follows
    return _en_negated(d.text[max(cs, start - EN_WINDOW):start])


def dismissed_after(d: Doc, end: int, sent_end: int) -> bool:
    return POST_DENY.search(d.text[end:sent_end]) is not None


def denied(d: Doc, sent: tuple, start: int, end: int) -> bool:
    return negated_before(d, sent[0], start) or dismissed_after(d, end, sent[1])
