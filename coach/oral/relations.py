"""What a key point asserts about its concepts (its relation), and what a sentence of an answer asserts about them.

A point names concepts ("softmax", "registers per thread") and says something of them: a value ("memory-bound", "per
row", "at compile time", "a warpgroup of four warps") or a trend ("more warps, fewer registers per thread"). An answer
that names the same concepts is credited only where it says the point's own relation; where it says a different one
("softmax is compute-bound", "each warp issues its own wgmma", "mean and rstd per column") it contradicts the point,
and the answer is told "you said X; in fact Y" (coach/oral/scoring.py reports it). The data is prompts.yaml
`rubric[].relation`, a list of:

  {of: [terms], is: [terms], not: [terms]}            a value: the point says OF is IS; NOT are the other values of
                                                      the same question (the opposite direction, operand, unit, owner)
  {of: [terms], with: [terms], trend: same|opposite}  a trend: as OF grows, WITH grows (same) or shrinks (opposite);
                                                      the direction words are the concepts @more and @less
  {order: [[terms], [terms], ...]}                    a sequence: stages in this order ("TTIR -> TTGIR -> LLVM IR");
                                                      two stages joined by an arrow or "then" the other way round
                                                      contradict it

Binding is by position, the way a reader binds a predicate to its subject: each mention of OF takes the value
mention nearest to it in its own clause, else in its sentence within a reach (40 characters, 20 in a sentence
with Chinese), a value after it preferred to one as far before it
(English and Chinese put the predicate after the subject; "memory-bound kernels like softmax" still binds). A
mention inside a longer one is not a mention (per warp inside per warpgroup). Then:

  IS asserted        holds          ("softmax is memory-bound", "softmax 是访存受限")
  NOT asserted       contradicts    ("softmax is compute-bound")
  IS denied          binds nothing  ("code Dynamo cannot trace causes a graph break": a denied value is too often
                                     about something else to fail an answer on; "tl.store doesn't hit HBM, it writes
                                     into shared memory": the next value binds)
  NOT denied         binds nothing  ("softmax is not compute-bound": the next value binds)

Two readings beyond the nearest value (coach/oral/scoring.py relation_state): a second predicate of the same subject
("FX traces the model and also does the operator fusion": a value after the bound one, before the next subject, in
the subject's clause, contradicts when it is a NOT value), and a topic clause ("torch.compile 的话，...", "With
torch.compile, ...": a clause that holds only its subject and a topic marker extends over the next clause). A value
relation with no `not` takes the other end of its `is` concept's axis (prompts.yaml `opposites`: manual / auto,
fused-one / unfused, compile-time / run-time, ...).

A trend holds when both OF and WITH take a direction word (asserted) and the product of the two directions is the
trend's. Whether a contradicting sentence is asserted at all (not in a conditional's antecedent, not reported speech,
not rebutted) is the scorer's rule for every claim; this module only binds.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

IS, NOT, MORE, LESS = "is", "not", "more", "less"


# what joins two stages of a sequence said in order: "TTIR -> TTGIR", "TTIR then TTGIR", "TTIR 再到 TTGIR"
ARROW = re.compile(r"\s*(?:-+>|→|=>|\bthen\b|\band then\b|\bfollowed by\b|\b(?:is )?lowered to\b|\binto\b|\bto\b|然后|再到|"
                   r"再|到|变成|转成|生成|之后是)\s*", re.I)


@dataclass(frozen=True)
class Relation:
    of: object                    # a compiled term (coach.oral.scoring.Part): what the relation is about
    is_: object | None = None     # a value: what the point says OF is
    not_: object | None = None    # the other values, each contradicting the point
    with_: object | None = None   # a trend: the other quantity
    trend: int = 0                # +1 same direction, -1 opposite, 0 for a value relation
    order: tuple = ()             # a sequence: compiled terms, one per stage, in order


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    asserted: bool
    kind: str                     # IS, NOT, MORE or LESS


def outermost(mentions: list) -> list:
    """Drop a mention that overlaps a longer one ("per warp" inside "per warpgroup", "确定性的" across "非确定性")."""
    size = lambda m: m.end - m.start  # noqa: E731
    return [m for m in mentions
            if not any(o is not m and o.start < m.end and m.start < o.end and
                       (size(o) > size(m) or (size(o) == size(m) and o.start < m.start)) for o in mentions)]


def affinity(subject: tuple, m: Mention, clause: tuple, reach: int, trend: bool = False,
             topic_first: bool = False) -> tuple | None:
    """How strongly mention M binds to SUBJECT (smaller binds first), or None when it cannot. A value binds first
    after its subject in the subject's clause ("tanh comes from libdevice"), then after it in the sentence within
    REACH characters ("softmax, though, is compute-bound"), then before it in its clause ("each warp issues its own
    wgmma"); never from an earlier clause ("..., so apply it in the epilogue; group scales stay inside"). A
    trend's direction words are modifiers as often as predicates ("more warps", "warps 越多"): the nearest in the clause
    on either side, else after within REACH. TOPIC_FIRST (a Chinese clause) puts a value before the subject in its
    clause ahead of one in the next clause: "编译期的值用 static_print，运行时用 device_print" binds 编译期 to
    static_print."""
    a, b = subject
    if m.end > a and m.start < b:
        return None
    after = m.start >= b
    gap = (m.start - b) if after else (a - m.end)
    inside = clause[0] <= m.start and m.end <= clause[1]
    if inside and trend:  # a direction word modifies: before its noun in English ("more warps"), after in Chinese
        return (0, gap + (0 if after == topic_first else 1))  # ("warp 越多"); a tie goes that way
    if inside and after:
        return (0, gap)
    if inside and topic_first:
        return (1, gap)
    if after and gap <= reach:
        return (1 if not topic_first else 2, gap)
    if inside:
        return (2, gap)
    return None


def bind(subject: tuple, mentions: list, clause_of, reach: int, rivals: list = (), trend: bool = False,
         topic_first=lambda span: False, rival_clause_of=None) -> Mention | None:
    """The mention bound to SUBJECT (start, end): the one of best affinity, among those no rival subject (another
    concept a relation of the checkpoint is about, in the same sentence) binds in a stronger way (after it in its
    clause against before it, say): "Inductor fuses ops and emits Triton source": "fuses" is Inductor's, not
    Triton's; at the same rank the nearer does not win ("direct convolution is what cuDNN uses because it maps onto
    tensor cores" is about direct convolution). A denied
    value ("not compute-bound", "doesn't hit HBM") binds nothing: the next one does. CLAUSE_OF gives a span's clause (lo, hi), TOPIC_FIRST
    whether it is a Chinese one; RIVAL_CLAUSE_OF a rival's (its whole clause: "看单个 kernel 的吞吐、寄存器看 ncu" keeps
    单个 kernel for ncu although 、 ends the list item)."""
    rival_clause_of = rival_clause_of or clause_of
    best, key = None, None
    for m in mentions:
        if m.kind in (IS, NOT) and not m.asserted:  # a denied value says what the subject is not: the next one binds
            continue
        k = affinity(subject, m, clause_of(subject), reach, trend, topic_first(subject))
        if k is None:
            continue
        if any(r != subject and not (r[0] < subject[1] and subject[0] < r[1]) and
               (rk := affinity(r, m, rival_clause_of(r), reach, trend, topic_first(r))) is not None and rk[0] < k[0]
               for r in rivals):
            continue
        if key is None or k < key:
            best, key = m, k
    return best


def judge_value(mention: Mention | None) -> str | None:
    """'holds', 'contradicts' or None for the value mention bound to a subject (the table in the docstring)."""
    if mention is None:
        return None
    if mention.kind == IS and mention.asserted:
        return "holds"
    if mention.kind == NOT and mention.asserted:
        return "contradicts"
    return None


def direction(mention: Mention | None) -> int:
    if mention is None or not mention.asserted:
        return 0
    return 1 if mention.kind == MORE else -1 if mention.kind == LESS else 0


def judge_trend(trend: int, x_dir: int, y_dir: int) -> str | None:
    if not x_dir or not y_dir:
        return None
    return "holds" if x_dir * y_dir == trend else "contradicts"


def judge_order(stages: list, text: str) -> list:
    """(verdict, start, end) for each two neighbouring stage mentions joined by an arrow: STAGES is [(stage index,
    start, end)] in text order; 'holds' when the later stage follows, 'contradicts' when it comes first."""
    out = []
    for (i, a0, a1), (j, b0, b1) in zip(stages, stages[1:]):
        if i != j and ARROW.fullmatch(text[a1:b0]):
            out.append(("holds" if j > i else "contradicts", a0, b1))
    return out
