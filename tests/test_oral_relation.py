"""coach/oral/relations.py: a key point carries its relation (prompts.yaml `rubric[].relation`), a value or a trend
bound to the concepts it is about. A clause that names those concepts with a different relation ("softmax is
compute-bound", "each warp issues its own wgmma", "mean and rstd per column", "more warps, more registers per
thread") is a wrong claim `CID:relation-N` that says what the learner said and what is true; the same words said
truly, denied, reported or in a conditional are not caught. Issue 19, round 5: most wrong answers that still passed
named a point's concepts and asserted another relation about them."""
from __future__ import annotations

import builtins

import pytest

from coach.oral import relations as R, scoring, text as T
from grader.reporting.texts import checkpoints

CHECKPOINTS = checkpoints()


def relation_ids(cid: str, answer: str, lang: str) -> list[str]:
    return [w["id"] for w in scoring.score(cid, answer, lang).wrong_claims if ":relation-" in w["id"]]


# (checkpoint, point number, lang, a sentence binding another relation to the point's concepts, a true sentence with
# the same words)
CASES = [
    ("roofline-arithmetic-intensity", 2, "en", "Softmax, though, is compute-bound because exp is expensive.",
     "Softmax is memory-bound, unlike a large matmul, which is compute-bound."),
    ("roofline-arithmetic-intensity", 2, "zh", "softmax 是计算受限的，因为 exp 很贵。",
     "softmax 是访存受限的，大矩阵乘才是计算受限。"),
    ("roofline-arithmetic-intensity", 1, "zh", "AI 大于拐点就是访存受限。", "AI 大于拐点就是计算受限。"),
    ("hopper-tma-persistent", 2, "en", "Each warp issues its own wgmma independently.",
     "A warpgroup of four warps issues one wgmma; each warp holds a quarter of the accumulator."),
    ("hopper-tma-persistent", 2, "zh", "wgmma 是每个 warp 各自发射的。", "wgmma 由一个 warpgroup（4 个 warp）一起发射。"),
    ("layernorm-save-recompute", 1, "en", "Save the mean and variance per column, N values each.",
     "Save the mean and rstd per row, M values each."),
    ("layernorm-save-recompute", 1, "zh", "存每列的均值和方差。", "存每行的均值和 rstd。"),
    ("tile-reuse", 2, "en", "Each A tile is read M/BLOCK_M times and each B tile N/BLOCK_N times.",
     "Each A tile is read N/BLOCK_N times and each B tile M/BLOCK_M times."),
    ("tile-reuse", 2, "zh", "A 块读 M/BM 次，B 块读 N/BN 次。", "A 块读 N/BN 次，B 块读 M/BM 次。"),
    ("kv-cache-paged-gqa", 1, "en", "The KV cache grows quadratically with the sequence length.",
     "The KV cache grows linearly with the sequence length; the attention scores are quadratic."),
    ("kv-cache-paged-gqa", 1, "zh", "KV cache 的大小跟序列长度的平方成正比。", "KV cache 的大小跟序列长度成正比（线性）。"),
    ("see-generated-code", 3, "en", "tl.static_print prints the actual values at run time in every thread.",
     "tl.static_print prints at compile time; tl.device_print prints values at run time."),
    ("see-generated-code", 3, "zh", "static_print 在运行时每个线程都会打印一次数值。",
     "编译期的值用 static_print，运行时的值用 device_print。"),
    ("decode-memory-bound-split-kv", 1, "en", "Decode is compute-bound because every step runs a matmul.",
     "Decode is memory-bound; prefill is compute-bound."),
    ("decode-memory-bound-split-kv", 1, "zh", "decode 是计算受限的。", "decode 访存受限，prefill 计算受限。"),
    ("profiling-tools", 1, "en", "Nsight Systems shows one kernel's occupancy and registers.",
     "Nsight Systems shows the timeline and launch gaps; Nsight Compute shows one kernel's occupancy."),
    ("mixed-precision", 3, "en", "Use e5m2 in the forward because it has more mantissa precision, e4m3 for gradients.",
     "Use e4m3 in the forward for its precision, e5m2 for gradients for its range."),
    ("weight-only-int4", 4, "en", "Per-group scales can always be moved to the epilogue.",
     "A per-channel scale factors out to the epilogue; a per-group scale cannot, it stays in the K loop."),
    ("weight-only-int4", 4, "zh", "per-group 的 scale 也能提到 epilogue 最后乘。",
     "per-channel 的 scale 能提到 epilogue；per-group 的不行，要在循环里乘。"),
    ("xblock-warps-grid", 4, "en", "More warps need more registers per thread, so they spill more.",
     "More warps mean fewer registers per thread and fewer spills."),
    ("xblock-warps-grid", 4, "zh", "warp 越多，每个线程的寄存器越多。", "warp 越多，每个线程的寄存器越少。"),
    ("xblock-warps-grid", 1, "en", "A larger XBLOCK means more programs.", "A larger XBLOCK means fewer programs."),
    ("xblock-warps-grid", 1, "en", "The grid is the number of threads launched, so XBLOCK must be a multiple of "
     "32*num_warps or the kernel is wrong.", "The grid is cdiv(n, XBLOCK) programs, or the kernel misses the tail."),
    ("implicit-gemm-conv", 3, "zh", "直接卷积用 tensor core，所以最快。", "直接卷积没有 GEMM 的形状，用不了 tensor core。"),
    ("guide-ch8-what-is-wrong", 3, "en", "But the guide's looped kernel in 8.4 is wrong too.",
     "The guide's looped kernel in 8.4 is right; its API names are not."),
    ("inductor-pipeline", 4, "en", "Triton goes TTGIR -> TTIR -> LLVM IR -> PTX -> cubin.",
     "Triton goes TTIR -> TTGIR -> LLVM IR -> PTX -> cubin."),
    ("inductor-pipeline", 4, "zh", "Triton 从 TTGIR 到 TTIR，再到 LLVM IR、PTX、cubin。", "Triton：TTIR → TTGIR → LLVM IR → PTX → cubin。"),
    ("compile-chain", 3, "en", "Triton fuses the ops of the graph.",
     "Inductor fuses ops and emits Triton source. Triton compiles that source to PTX."),
]


@pytest.mark.parametrize("cid, n, lang, said, true", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_a_different_relation_is_caught_and_the_true_one_in_the_same_words_is_not(cid, n, lang, said, true):
    assert f"{cid}:relation-{n}" in relation_ids(cid, said, lang), said
    assert relation_ids(cid, true, lang) == [], true


def test_the_wrong_claim_says_what_the_learner_said_and_what_is_true():
    s = scoring.score("roofline-arithmetic-intensity", "Softmax, though, is compute-bound because exp is slow.", "en")
    w = [w for w in s.wrong_claims if w["id"] == "roofline-arithmetic-intensity:relation-2"][0]
    assert "Softmax, though, is compute-bound" in w["claim"] and w["quote"].startswith("Softmax")
    assert w["why"].startswith("In fact:") and "memory-bound" in w["why"]
    zh = scoring.score("roofline-arithmetic-intensity", "softmax 是计算受限的。", "zh")
    w = [w for w in zh.wrong_claims if w["id"] == "roofline-arithmetic-intensity:relation-2"][0]
    assert w["claim"].startswith("你说的是“softmax 是计算受限") and w["why"].startswith("事实是")
    assert not s.points[1]["found"] and s.points[1]["denied"]  # the point is not credited from that clause


def test_a_relation_fails_an_answer_that_covers_every_point():
    answer = ("Arithmetic intensity is FLOPs per DRAM byte, the ridge point is peak over bandwidth. Vector add is "
              "memory-bound, measured in GB/s against a copy. A large matmul is compute-bound, intensity about n/3. "
              "Softmax, though, is compute-bound because exp is expensive.")
    s = scoring.score("roofline-arithmetic-intensity", answer, "en")
    assert not s.passed and [w["id"] for w in s.wrong_claims] == ["roofline-arithmetic-intensity:relation-2"]


@pytest.mark.parametrize("lang, text", [
    ("en", "Softmax is not compute-bound: it is memory-bound."),
    ("en", "The guide says softmax is compute-bound, which is wrong."),
    ("en", "If softmax were compute-bound, fusing it would not help."),
    ("zh", "softmax 不是计算受限，是访存受限。"),
    ("zh", "很多人以为 softmax 是计算受限的，其实不是。"),
])
def test_denied_reported_and_conditional_relations_are_not_caught(lang, text):
    assert relation_ids("roofline-arithmetic-intensity", text, lang) == [], text


def test_a_value_binds_to_the_nearest_subject():
    """"fuses" in "Inductor fuses ops and emits Triton source" is Inductor's, not Triton's; a predicate before the
    subject in an earlier clause binds nothing ("..., so apply it in the epilogue; group scales stay inside")."""
    assert relation_ids("compile-chain", "Inductor turns it into loop IR, fuses ops into kernels and emits Triton "
                                         "source.", "en") == []
    assert relation_ids("weight-only-int4", "A per-channel scale factors out, so apply it in the epilogue; group scales "
                                            "change along K so they stay inside.", "en") == []
    # the Chinese topic comes first: 编译期 belongs to static_print, 运行时 to device_print
    assert relation_ids("see-generated-code", "手写 kernel：解释器模式、device_print、编译期的值用 static_print。", "zh") == []


def test_binding_rules():
    m = lambda a, b, kind, ok=True: R.Mention(a, b, ok, kind)  # noqa: E731
    subject, clause = (10, 20), (0, 40)
    after, before = m(25, 30, R.IS), m(2, 6, R.NOT)
    assert R.bind(subject, [after, before], lambda s: clause, 40) is after  # after the subject first
    assert R.bind(subject, [before], lambda s: clause, 40) is before        # else before it in its clause
    assert R.bind(subject, [m(45, 50, R.NOT)], lambda s: clause, 40) is not None   # after it in the sentence, in reach
    assert R.bind(subject, [m(70, 75, R.NOT)], lambda s: clause, 40) is None       # out of reach
    assert R.bind(subject, [m(25, 30, R.NOT, ok=False), after], lambda s: clause, 40) is after  # a denied NOT binds nothing
    # a rival subject that binds the value in a stronger way takes it: the value is before SUBJECT in its clause and
    # right after the rival ("Inductor fuses ops and emits Triton source"); at the same rank the nearer does not win
    assert R.bind((20, 30), [m(8, 12, R.NOT)], lambda s: clause, 40, [(2, 6)]) is None
    assert R.bind(subject, [m(36, 38, R.NOT)], lambda s: clause, 40, [(31, 35)]) is not None
    assert R.outermost([m(0, 9, R.IS), m(4, 9, R.NOT)]) == [m(0, 9, R.IS)]  # "per warp" inside "per warpgroup"
    assert R.judge_trend(-1, 1, -1) == "holds" and R.judge_trend(-1, 1, 1) == "contradicts"
    assert R.judge_trend(-1, 0, 1) is None


def test_no_true_text_of_the_data_contradicts_a_relation_of_any_checkpoint():
    """Every model answer and every claim's correction is true: none may bind another relation to a point's concepts,
    of its own checkpoint or of another (a learner brings in neighbouring facts)."""
    scoring.register_words()
    texts = [cp["answer"][lang] for cp in CHECKPOINTS.values() for lang in ("en", "zh")]
    texts += [c["why"][lang] for c in scoring.claims().values() for lang in ("en", "zh") if (c.get("why") or {}).get(lang)]
    docs = [T.doc(t) for t in texts]
    found = []
    for cid in CHECKPOINTS:
        m = scoring.matcher(cid)
        for i, p in enumerate(m.points):
            for r in p.relations:
                found += [(cid, i + 1, st[2]) for d in docs
                          if (st := scoring.relation_state(d, r, scoring.rivals(m, r)))[0] == "contradicts"]
    assert not found, found


def test_the_mock_review_names_a_relation_in_the_session_language():
    claim, why = scoring.claim_text("roofline-arithmetic-intensity", "roofline-arithmetic-intensity:relation-2", "zh")
    assert claim.startswith("与要点相反") and why.startswith("事实是")
    assert scoring.claim_text("roofline-arithmetic-intensity", "roofline-arithmetic-intensity:relation-1", "en")
    assert scoring.claim_text("why-mask", "why-mask:relation-1", "en") is None  # why-mask's point 1 has no relation


def test_relations_are_caught_without_jieba(monkeypatch):
    """The GPU image has no jieba: the fallback segmenter binds the same relations."""
    real = builtins.__import__

    def no_jieba(name, *a, **k):
        if name == "jieba":
            raise ImportError("no jieba here")
        return real(name, *a, **k)

    T._jieba.cache_clear()
    monkeypatch.setattr(builtins, "__import__", no_jieba)
    try:
        assert T.segmenter() == "fallback"
        for cid, n, lang, said, true in CASES:
            if lang == "zh":
                assert f"{cid}:relation-{n}" in relation_ids(cid, said, lang), said
                assert relation_ids(cid, true, lang) == [], true
    finally:
        monkeypatch.setattr(builtins, "__import__", real)
        T._jieba.cache_clear()


def test_malformed_relation_data_is_drills_own_error():
    from grader.core.catalog import CatalogError
    for bad in ({"is": ["x"], "not": ["y"]}, {"of": ["a"], "is": ["x"]}, {"of": ["a"], "with": ["b"], "trend": "up"}):
        with pytest.raises(CatalogError):
            scoring.compile_relation("why-mask", bad)
