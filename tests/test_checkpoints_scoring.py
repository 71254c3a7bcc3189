"""coach/oral/scoring.py: the term syntax, denials of wrong claims, the matcher data in prompts.yaml (every checkpoint
compiles, no digit or question noun is a key point on its own, repeating the question never passes) and the
`drill checkpoints ID --answer` command."""
from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from coach.oral import scoring
from grader.reporting.texts import checkpoints

CHECKPOINTS = checkpoints()
LANGS = ("en", "zh")


def found(term, text):
    scoring.register_words()
    d = scoring.T.doc(text)
    return any(scoring._alt_state(d, scoring._compile_alt(a)) == "asserted" for a in scoring.expand(term))


# ------------------------------------------------------------------------------------------------- the term syntax

def test_words_match_at_word_edges_with_plurals_and_any_case():
    assert found("tile", "each program owns a Tile")
    assert found("tile", "two tiles")
    assert not found("tile", "a tiled loop")           # a different word
    assert not found("mask", "the xmask line")         # no match inside an identifier
    assert not found("block", "BLOCK_SIZE is 1024")    # BLOCK_SIZE is not the word block
    assert found("round up", "we round-up the grid") and found("round up", "ROUND   UP")
    assert found("memory-bound", "it is memory bound") and found("num_warps", "num warps")


def test_stems_cjk_regex_and_notation():
    assert found("coalesc*", "accesses are coalesced") and found("coalesc*", "coalescing")
    assert found("2 的幂", "BLOCK 要是2的幂")              # no space needed between digits and CJK
    assert found("re:x\\s*30", "inputs ×30") and found("re:x\\s*30", "inputs x 30")  # × is normalised to x
    assert found("@neg-inf", "use negative infinity") and found("@neg-inf", "用负无穷") and found("@neg-inf", "other=-inf")
    assert found("@pow2", "a power of 2") and found("@pow2", "2^k lanes")
    assert found("@fp32", "accumulate in float32") and found("@fp32", "fp32 累加") and not found("@fp32", "fp16")


def test_all_of_terms_must_share_a_sentence():
    assert found(["program", "tile"], "Each program handles one tile.")
    assert not found(["program", "tile"], "Each program runs. A tile is loaded.")
    assert found(["program", "@tile"], "一个 program 处理一整块数据")


def test_concepts_and_claims_refuse_unknown_names():
    with pytest.raises(KeyError):
        scoring.expand("@no-such-concept")
    with pytest.raises(KeyError):
        scoring.matcher_for("x", {"rubric": [], "wrong": ["no-such-claim"]})


# ------------------------------------------------------------------------------------------------- wrong claims

@pytest.mark.parametrize("text", [
    "program_id is basically threadIdx.",
    "tl.program_id 就是线程 id。",
    "Each thread handles one element.",
    "每个线程处理一个元素。",
    "You pick num_warps >= XBLOCK/32.",
    "The grid is limited to 48 programs.",
    "grid 要限制在 48 以内。",
])
def test_the_guides_errors_are_caught_when_asserted(text):
    m = scoring.Matcher("t", [], [scoring.compile_claim(c, scoring.claims()[c]) for c in
                                  ("program-id-is-thread", "one-element-per-thread", "warps-rule", "grid-capped-48")], 0)
    assert scoring.score_text(m, text).wrong_claims, text


@pytest.mark.parametrize("text", [
    "program_id is not threadIdx, it numbers tiles.",
    "tl.program_id 不是线程 id。",
    "The guide says each thread handles one element, which only holds for its own 256-element example.",
    "指南说每个线程处理一个元素，这只在它自己的例子里成立。",
    "The guide's rule num_warps >= XBLOCK/32 is wrong.",
    "Nothing caps the grid at 48.",
    "很多人以为 grid 限制在 48，其实不是。",
])
def test_a_denied_claim_is_not_a_claim(text):
    m = scoring.Matcher("t", [], [scoring.compile_claim(c, scoring.claims()[c]) for c in
                                  ("program-id-is-thread", "one-element-per-thread", "warps-rule", "grid-capped-48")], 0)
    assert not scoring.score_text(m, text).wrong_claims, text


@pytest.mark.parametrize("text, claimed", [
    ("FlashAttention is faster because it does fewer FLOPs.", True),
    ("Fewer FLOPs is not the reason; it moves fewer bytes.", False),
    ("Doing fewer FLOPs isn't why it is fast.", False),
    ("FlashAttention 快是因为 FLOPs 更少。", True),
    ("FLOPs 更少不是原因，字节少才是。", False),
])
def test_is_not_the_reason_denies_a_claim(text, claimed):
    m = scoring.Matcher("t", [], [scoring.compile_claim("fewer-flops", scoring.claims()["fewer-flops"])], 0)
    assert bool(scoring.score_text(m, text).wrong_claims) == claimed, text


def test_a_wrong_claim_fails_an_answer_that_covers_every_point():
    cp = CHECKPOINTS["program-id-is-a-tile"]
    good = cp["answer"]["en"]
    assert scoring.score("program-id-is-a-tile", good).passed
    bad = scoring.score("program-id-is-a-tile", good + " In other words, program_id is just threadIdx.")
    assert all(p["found"] for p in bad.points) and not bad.passed
    (w,) = bad.wrong_claims
    assert w["id"] == "program-id-is-thread" and "threadIdx" in w["quote"] and "blockIdx" in w["why"]
    zh = scoring.score("program-id-is-a-tile", "program_id 就是 threadIdx", "zh").wrong_claims[0]
    assert re.search(r"[\u4e00-\u9fff]", zh["why"]) and re.search(r"[\u4e00-\u9fff]", zh["claim"])


def test_empty_answer_fails_without_claims():
    s = scoring.score("why-mask", "   ")
    assert not s.passed and not s.wrong_claims and not any(p["found"] for p in s.points)


# ------------------------------------------------------------------------------------------------- the data

def test_every_checkpoint_compiles_and_lists_known_claims():
    used = set()
    for cid, cp in CHECKPOINTS.items():
        m = scoring.matcher_for(cid, cp)
        assert m.points and 1 <= m.need <= len(m.points), cid
        used |= {c.cid for c in m.claims}
    for claim_id, data in scoring.claims().items():
        for lang in LANGS:
            assert data["claim"].get(lang) and data["why"].get(lang), (claim_id, lang)
        assert data.get("patterns") or data.get("concepts"), claim_id
    unused = set(scoring.claims()) - used
    assert not unused, f"claims no checkpoint looks for: {sorted(unused)}"


def question_nouns(cp: dict) -> tuple[set[str], str]:
    """The question's ASCII words and identifiers (lower case), and its Chinese text."""
    text = " ".join(cp["question"][lang] for lang in LANGS)
    words = {w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_.]*", text)}
    return words, text


def plain_terms(term) -> list:
    """The literal terms of one match alternative (concepts expanded), for the lint."""
    if isinstance(term, list):
        return [t for x in term for t in plain_terms(x)]
    term = str(term)
    if term.startswith("@"):
        return [t for x in scoring.concepts()[term[1:]] for t in plain_terms(x)]
    return [term]


def is_question_noun(term: str, words: set[str], text: str) -> bool:
    t = term.rstrip("*").strip().lower()
    if re.fullmatch(r"[a-z_][a-z0-9_.]*", t):
        return t in words or (t.endswith("s") and t[:-1] in words)
    cjk = re.sub(r"\s+", "", t)
    return bool(re.fullmatch(r"[\u4e00-\u9fff]+", cjk)) and cjk in re.sub(r"\s+", "", text)


@pytest.mark.parametrize("cid", sorted(CHECKPOINTS))
def test_no_digit_or_question_noun_is_a_key_point_on_its_own(cid):
    cp = CHECKPOINTS[cid]
    words, text = question_nouns(cp)
    for item in cp["rubric"]:
        for alt in item["match"]:
            terms = [t for t in plain_terms(alt) if not t.startswith("re:")]

            def weak(t):  # a bare number, bare punctuation, or a noun of the question
                bare = t.rstrip("*").strip()
                return bool(re.fullmatch(r"[\d.,\s]+|[^\w\u4e00-\u9fff]+", bare)) or is_question_noun(t, words, text)
            if isinstance(alt, list):  # all-of: one part may be weak, not all of them
                assert any(not weak(t) for t in terms), (cid, alt)
            else:
                for t in terms:
                    assert not weak(t), (cid, "a bare number or a question noun on its own", t)


@pytest.mark.parametrize("cid", sorted(CHECKPOINTS))
def test_repeating_the_question_never_passes(cid):
    q = CHECKPOINTS[cid]["question"]
    for lang in LANGS:
        assert not scoring.score(cid, q[lang], lang).passed, (cid, lang)
    assert not scoring.score(cid, q["en"] + " " + q["zh"]).passed, cid


# ------------------------------------------------------------------------------------------------- the command

@pytest.fixture
def run_cli(monkeypatch):
    import cli

    def run(*args, input=None):
        for var in ("DRILL_LANG", "LANG", "LC_ALL"):
            monkeypatch.delenv(var, raising=False)
        return CliRunner().invoke(cli.main, list(args), input=input)
    return run


def test_cli_scores_an_answer_as_json(run_cli):
    r = run_cli("checkpoints", "why-mask", "--answer",
                "n is rarely a multiple of BLOCK_SIZE, so the last tile runs past the end; the mask keeps those lanes "
                "from reading or writing out of bounds, and without it nothing crashes reliably.", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert set(data) == {"id", "passed", "points", "wrong_claims", "need", "rule"}
    assert data["id"] == "why-mask" and data["passed"] is True and data["wrong_claims"] == []
    assert all(set(p) == {"point", "found", "denied"} for p in data["points"])
    assert data["need"] == 2 and data["rule"].startswith("needs 2 of 3 key points (half, rounded up)")
    assert "passed: 2 of 3 found" in data["rule"]


def test_cli_wrong_claim_exits_1_and_says_why_in_chinese(run_cli):
    r = run_cli("checkpoints", "program-id-is-a-tile", "--answer", "program_id 就是 threadIdx，一个线程算一个元素",
                "--lang", "zh", "--json")
    assert r.exit_code == 1, r.output
    data = json.loads(r.output)
    assert data["passed"] is False and data["wrong_claims"]
    assert "blockIdx" in data["wrong_claims"][0]["why"] and re.search(r"[\u4e00-\u9fff]", data["points"][0]["point"])
    r = run_cli("checkpoints", "program-id-is-a-tile", "--answer", "program_id is threadIdx")
    assert r.exit_code == 1 and "FAIL" in r.output and "blockIdx" in r.output


def test_cli_reads_the_answer_from_stdin(run_cli):
    r = run_cli("checkpoints", "grid-cdiv", "--answer", "-", "--json",
                input="One program per tile, and you round up so the partial last tile gets a program.\n")
    assert r.exit_code == 0 and json.loads(r.output)["passed"]


def test_cli_usage_errors(run_cli):
    r = run_cli("checkpoints", "mask", "--answer", "x")          # a drill, not a checkpoint id
    assert r.exit_code == 2 and "why-mask" in r.output and "Traceback" not in r.output
    r = run_cli("checkpoints", "--answer", "x")
    assert r.exit_code == 2
    assert run_cli("checkpoints", "no-such-id", "--answer", "x").exit_code == 2


def test_cli_shows_one_checkpoint_by_id_and_its_traps(run_cli):
    r = run_cli("checkpoints", "xblock-warps-grid")
    assert r.exit_code == 0 and "1/1" in r.output and "Claims that fail this question" in r.output
    assert "num_warps must be at least XBLOCK/32" in r.output
    data = json.loads(run_cli("checkpoints", "mask", "--json").output)
    assert [d["id"] for d in data] == [cid for cid, _ in __import__("grader.reporting.texts", fromlist=["x"]).checkpoints_for("mask")]
