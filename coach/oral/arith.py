"""Arithmetic said in an answer, checked by computing it: "exp(-inf - (-inf)) = NaN" holds, "exp(-inf - 有限值) = NaN"
does not (it is exp(-inf) = 0); "cdiv(100000, 1024) = 98" holds, "100000 / 1024 = 97" does not. A falsehood no claim
lists is still false when the answer states its value: the machine's arithmetic is the model of the truth.

Plain numbers (`numeric_slips`): an expression of numbers only (+ - * / x ^, cdiv(a, b), ceil/floor(...), parentheses)
said to equal a number with "="; integer arithmetic must be exact, a division may be floored or ceiled (98 or 97 for
100000 / 1024 is a matter of which division the candidate means), and a decimal value may be rounded (2 %). "≈" and
"about" are not checked.

An expression is a run of operands (inf, -inf, 负无穷, NaN, 0, 1, a finite value / 有限值), the operators + - * / and
parentheses, optionally inside exp(...) / log(...); it is checked where the answer says what it equals ("=", "is",
"gives", "becomes", "->", 是, 就是, 等于, 得到, 变成) and names the result (NaN, inf, -inf, 0, 1, finite / 有限).
"a finite value" is tried as several finite numbers: a statement must hold for each. Expressions with any other
symbol (m_old - m_new) are not read; a negated statement ("is not NaN") is not read either.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

# operand words as Python literals; FINITE stands for any finite value
_OPERANDS = [(re.compile(r"负无穷(?:大)?|negative infinity|minus infinity|float\(\s*'-inf'\s*\)", re.I), " NEG "),
             (re.compile(r"正无穷(?:大)?|无穷大|\binf(?:inity)?\b|float\(\s*'inf'\s*\)", re.I), " POS "),
             (re.compile(r"\bnan\b|非数", re.I), " NAN "),
             (re.compile(r"有限(?:的)?(?:值|数|数值)?|(?:a |any )?finite (?:value|number|max|score)s?|\bfinite\b", re.I), " FIN ")]
_CONNECT = re.compile(r"\s*[,，]?\s*(?:(?:这个|这|which|that|it|the result)\s*)?(?:(?:就|也|都|会)\s*)*"
                      r"(?:==?|is|equals|gives|becomes|->|=>|是|等于|得到|变成|为)\s*", re.I)
_NEGATED = re.compile(r"\b(?:not|isn't|never|no longer)\b|不是|不会是|不等于|不会|并非", re.I)
_RESULT = re.compile(r"(?P<r>-\s*inf(?:inity)?\b|负无穷|\+?\s*inf(?:inity)?\b|正无穷|无穷大|\bnan\b|有限(?:值|数)?|finite|"
                     r"0(?:\.0+)?(?!\.?\d)|1(?:\.0+)?(?!\.?\d))", re.I)
_FINITES = (1.0, -3.5, 7.25)


@dataclass(frozen=True)
class Slip:
    quote: str       # the learner's words: expression and the value they gave it
    said: str        # the value they gave (NaN, 0, inf, ...)
    actual: str      # what IEEE arithmetic gives
    start: int = 0   # where the statement stands in the sentence
    end: int = 0


def _kind(x: float) -> str:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return "0" if x == 0 else "1" if x == 1 else "finite"


def _said(word: str) -> str:
    w = word.lower().replace(" ", "")
    if w.startswith("-") or w == "负无穷":
        return "-inf"
    if "inf" in w or w in ("正无穷", "无穷大"):
        return "inf"
    if w == "nan":
        return "NaN"
    if w.startswith("有限") or w == "finite":
        return "finite"
    return "0" if w.startswith("0") else "1"


def _ieee(op: str, a: float, b: float) -> float:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return math.nan if (a == 0 and math.isinf(b)) or (b == 0 and math.isinf(a)) else a * b
    if b == 0:
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a)
    return math.nan if math.isinf(a) and math.isinf(b) else a / b


_TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<name>NEG|POS|NAN|FIN|exp|log)|(?P<op>[-+*/()]))")


def _evaluate(expr: str, fin: float) -> float | None:
    """EXPR (operands already replaced) under IEEE rules, FIN for a finite value; None when it does not parse."""
    toks, pos = [], 0
    while pos < len(expr):
        if expr[pos:].strip() == "":
            break
        m = _TOKEN.match(expr, pos)
        if not m:
            return None
        toks.append(m.group("num") or m.group("name") or m.group("op"))
        pos = m.end()
    if len(toks) > 40 or toks.count("(") > 8:  # a statement, not a program: typed text stays cheap to read
        return None
    vals = {"NEG": -math.inf, "POS": math.inf, "NAN": math.nan, "FIN": fin}
    i = 0

    def atom():
        nonlocal i
        if i >= len(toks):
            raise ValueError
        t = toks[i]
        i += 1
        if t in ("exp", "log"):
            if i >= len(toks) or toks[i] != "(":
                raise ValueError
            v = atom()
            if t == "exp":
                return math.nan if math.isnan(v) else 0.0 if v == -math.inf else math.inf if v > 709 else math.exp(v)
            return math.nan if math.isnan(v) or v < 0 else -math.inf if v == 0 else math.log(v)
        if t == "(":
            v = expr_()
            if i >= len(toks) or toks[i] != ")":
                raise ValueError
            i += 1
            return v
        if t == "-":
            return -atom()
        if t in vals:
            return vals[t]
        return float(t)

    def term():
        nonlocal i
        v = atom()
        while i < len(toks) and toks[i] in "*/":
            op = toks[i]
            i += 1
            v = _ieee(op, v, atom())
        return v

    def expr_():
        nonlocal i
        v = term()
        while i < len(toks) and toks[i] in "+-":
            op = toks[i]
            i += 1
            v = _ieee(op, v, term())
        return v

    try:
        v = expr_()
    except (ValueError, IndexError, OverflowError, RecursionError):
        return None
    return v if i == len(toks) else None


_WORD_OPS = [(re.compile(r"\s*(?:\bdivided by\b|\bover\b|除以)\s*", re.I), " / "),
             (re.compile(r"\s*(?:\bminus\b|减去|减)\s*", re.I), " - "),
             (re.compile(r"\s*(?:\btimes\b|乘以|乘)\s*", re.I), " * "),
             (re.compile(r"\s*(?:\bplus\b|加上)\s*", re.I), " + ")]


def _special(expr: str) -> str:
    for pattern, lit in _WORD_OPS:
        expr = pattern.sub(lit, expr)
    for pattern, lit in _OPERANDS:
        expr = pattern.sub(lit, expr)
    return expr.replace("e^", "exp")


_TAIL = re.compile(r"(?:exp|log|NEG|POS|NAN|FIN|[\s()+\-*/.0-9])+$")


def _trailing(expr: str) -> str:
    """The longest end of EXPR that is a whole expression ("NaN 来自 exp(-inf - 有限值)": the exp(...) part)."""
    m = _TAIL.search(expr)
    if not m:
        return ""
    body = m.group(0)[-120:]
    for i in range(len(body)):
        if body[i].isspace() or (i and body[i - 1].isalpha() and body[i].isalpha()):
            continue
        cand = body[i:].strip()
        # an operation, not a bare operand ("you get inf and then ... is nan" names a variable's value)
        if cand and re.search(r"[-+*/]|exp|log", cand) and _evaluate(cand, 1.0) is not None:
            return cand
    return ""


def slips(sentence: str) -> list[Slip]:
    """Each statement in SENTENCE of the value of an expression on special values that IEEE arithmetic contradicts."""
    out = []
    for m in re.finditer(r"(?:=|==|\bis\b|\bequals\b|\bgives\b|\bbecomes\b|->|=>|是|等于|得到|变成|为)", sentence, re.I):
        res = _RESULT.match(sentence, m.end() + len(sentence[m.end():]) - len(sentence[m.end():].lstrip()))
        if not res:
            continue
        if res.end() < len(sentence) and re.match(r"[A-Za-z0-9_(]", sentence[res.end():res.end() + 1]):
            continue  # "= 0.5*x", "is finite_value": not a bare result
        head = sentence[:m.start()]
        if _NEGATED.search(head[-12:]):
            continue
        # the expression: the longest tail of HEAD, after "=" or a clause mark, that is operands and operators only
        tail = re.split(r"=|[,，;；:：。]|\bis\b|是|就是", head)[-1]
        tail = re.sub(r"^\s*(?:这个|这|which|that|it)\s*(?:就|也|都)?\s*$", "", tail)
        if not tail.strip():  # "exp(-inf - 有限值)，这个就是 NaN": the expression is the previous piece
            pieces = [p for p in re.split(r"=|[,，;；:：]|\bis\b", head) if p.strip()]
            tail = pieces[-2] if len(pieces) >= 2 and re.fullmatch(r"\s*(?:这个|这|which|that|it)\s*(?:就|也|都)?\s*",
                                                                    pieces[-1]) else ""
        expr = _trailing(_special(tail.strip()))
        if not expr or not (any(w in expr for w in ("NEG", "POS", "NAN")) or re.search(r"/\s*0(?![.\d])", expr)):
            continue
        got = {_kind(v) for v in (_evaluate(expr, f) for f in _FINITES) if v is not None}
        if len(got) != 1 and not (got and got <= {"finite", "0", "1"}):
            continue
        said = _said(res.group("r"))
        actual = got.pop() if len(got) == 1 else "finite"
        if said == actual or (said == "finite" and actual in ("0", "1")):
            continue
        start = max(0, m.start() - len(tail.rstrip()))
        out.append(Slip(quote=(tail.strip() + " " + sentence[m.start():res.end()]).strip(), said=said, actual=actual,
                        start=start, end=res.end()))
    return out


_NUM = r"\d+(?:\.\d+)?(?:e-?\d+)?"
_NUM_EXPR = re.compile(r"(?<![\w.^*/+\-])((?:(?:cdiv|ceil|floor)\s*\()?\s*\(?\s*" + _NUM +
                       r"(?:\s*(?:[-+*/^]|\*\*|x|,)\s*\(?\s*" + _NUM + r"\s*\)*)+\s*\)*)\s*=\s*(" + _NUM + r")"
                       r"(?:\s*(k|kb|kib|m|mb|mib|g|gb|gib|t|tb|tib|万|亿)(?![a-z]))?(?![\w.]*\s*[*/^x(])", re.I)
_UNITS = {"k": (1e3, 2 ** 10), "m": (1e6, 2 ** 20), "g": (1e9, 2 ** 30), "t": (1e12, 2 ** 40), "万": (1e4,), "亿": (1e8,)}


def _numeric(expr: str) -> float | None:
    e = expr.lower().replace("**", "^")
    e = re.sub(r"(?<=\d)\s*x\s*(?=\d|\()", " * ", e)
    e = e.replace("^", "**")
    if re.search(r"[a-wyz]", re.sub(r"cdiv|ceil|floor|e-?\d", "", e)):
        return None
    # typed text is evaluated in drill's own process: no power tower, no huge exponent (2^31 is the largest asked)
    if e.count("**") > 1 or any(float(x) > 128 for x in re.findall(r"\*\*\s*\(?\s*(\d+(?:\.\d+)?)", e)):
        return None
    env = {"cdiv": lambda a, b: -(-a // b), "ceil": math.ceil, "floor": math.floor, "__builtins__": {}}
    try:
        v = eval(e, env, {})  # noqa: S307 (numbers, operators and three functions only: checked above)
    except Exception:  # noqa: BLE001 (anything that does not compute is not read)
        return None
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def numeric_slips(sentence: str) -> list[Slip]:
    """Each "<numbers and operators> = <number>" in SENTENCE whose value the arithmetic contradicts."""
    out = []
    for m in _NUM_EXPR.finditer(sentence):
        expr, said = m.group(1), float(m.group(2))
        unit = (m.group(3) or "").lower()
        if not re.search(r"[-+*/^x]|cdiv|ceil|floor", expr.replace(",", " "), re.I) or len(expr) > 80:
            continue
        if expr.count("(") != expr.count(")"):
            continue
        v = _numeric(expr)
        if v is None or math.isinf(v) or math.isnan(v):
            continue
        literal = m.group(2)
        if unit:  # "= 128 KiB": the unit's decimal or binary multiple, rounded
            ok = any(abs(said * k - v) <= 0.02 * abs(v) for k in _UNITS[unit[0]])
        elif re.search(r"[.e]", literal, re.I) or re.search(r"\d\.\d|e-?\d", expr, re.I):
            ok = abs(said - v) <= 0.02 * max(abs(v), 1e-12)  # a decimal answer rounds
        elif "/" in expr:
            ok = said in (math.floor(v), math.ceil(v))  # which division the candidate means
        else:
            ok = said == v  # integer arithmetic is exact
        if ok:
            continue
        out.append(Slip(quote=m.group(0).strip(), said=m.group(2), actual=f"{v:.6g}", start=m.start(), end=m.end()))
    return out
