"""coach/oral: each key point carries its contrary (the point said the other way round, as concept parts in both
languages, prompts.yaml `rubric[].contrary`). A clause that asserts one fails
the answer with "you said X; in fact Y", whatever else the answer covers; the same words said truly, denied,
reported ("the guide says") or rebutted are not caught. Issue 19: the blind round-4 answers that still passed each
stated the true points plus one such falsehood."""
from __future__ import annotations

import pytest

from coach.oral import scoring, text as T
from grader.reporting.texts import checkpoints

CHECKPOINTS = checkpoints()


def contraries(cid: str, answer: str, lang: str) -> list[str]:
    return [w["id"] for w in scoring.score(cid, answer, lang).wrong_claims if ":contrary-" in w["id"]]


def test_every_checkpoint_has_contraries_that_compile():
    for cid, cp in CHECKPOINTS.items():
        m = scoring.matcher(cid)
        ids = [c.cid for c in m.claims if ":contrary-" in c.cid]
        assert ids, f"{cid}: no key point carries a contrary"
        for c in m.claims:
            if ":contrary-" in c.cid:
                assert c.concepts and all(parts for parts, *_ in c.concepts), c.cid
                assert c.claim.get("en") and c.claim.get("zh") and c.why.get("en") and c.why.get("zh"), c.cid


def test_no_true_text_of_the_data_asserts_a_contrary_of_any_checkpoint():
    """Every model answer is true: none may say a contrary, of its own checkpoint or of another (a learner brings in
    neighbouring facts: "the bytes are the same", "any power-of-two block"). The claims' corrections (`why`) were
    checked the same way once (2026-12-01, no hit); they are left out here for the suite's time."""
    texts = [(lang, cp["answer"][lang]) for cp in CHECKPOINTS.values() for lang in ("en", "zh")]
    scoring.register_words()
    docs = [T.doc(t) for _, t in texts]
    found = []
    for cid in CHECKPOINTS:
        cons = [c for c in scoring.matcher(cid).claims if ":contrary-" in c.cid]
        for d in docs:
            found += [(c.cid, quote) for c, quote in scoring.find_claims(cons, d)]
    assert not found, found


# (checkpoint, point number, lang, a clause asserting the point's contrary, a true sentence with the same words)
CASES = [
    ("why-mask", 3, "en", "Without the mask the GPU catches the bad access right away with an illegal memory access error.",
     "Without the mask you may get an illegal memory access error, but often nothing at all."),
    ("why-mask", 3, "zh", "没有 mask 的话越界访问会立刻触发 illegal memory access，程序直接挂掉。",
     "没有 mask 的话越界访问有时候会报 illegal memory access，更多时候什么都不报。"),
    ("why-mask", 2, "en", "Masked lanes still load from memory like every other lane; the store just drops them.",
     "Masked lanes never load from memory; only the other lanes do."),
    ("why-mask", 2, "zh", "被 mask 的 lane 其实还是会去读内存，只是值不用。", "被 mask 的 lane 不会去读内存。"),
    ("reduction-codegen", 2, "en", "Inductor uses a persistent kernel when the row is long, looping over it.",
     "Inductor uses a persistent kernel when the row fits in one block, and loops over a long row."),
    ("reduction-codegen", 2, "zh", "行很长的时候 Inductor 用 persistent kernel。", "行能放进一个块的时候 Inductor 用 persistent kernel，行很长就循环。"),
    ("compile-cache", 3, "en", "None of that persists: every new process pays the full cold compile again.",
     "The FX graph cache, the AOTAutograd cache and the Triton kernels persist on disk under Inductor's cache dir."),
    ("compile-cache", 3, "zh", "磁盘缓存只有 ~/.triton/cache 一个，FX 图和 AOTAutograd 都不缓存。",
     "FX 图、AOTAutograd 和 Triton kernel 都缓存在 Inductor 的缓存目录里。"),
    ("launch-overhead-cuda-graphs", 3, "en", "reduce-overhead is essentially free to turn on: a single graph handles all input shapes.",
     "reduce-overhead is not free: one recording per shape and static buffers."),
    ("launch-overhead-cuda-graphs", 3, "zh", "这个模式基本没副作用：一张图能处理所有 shape。", "这个模式有代价：每种 shape 都要录一次图。"),
    ("softmax-max-subtraction", 2, "en", "Subtracting the max is an approximation: it changes the result slightly.",
     "Subtracting the max is exact, not an approximation: it does not change the result."),
    ("softmax-max-subtraction", 2, "zh", "减掉最大值严格来说是个近似，结果会有一点点偏差。", "减掉最大值是精确的，不是近似，不改变结果。"),
    ("flashattention-io-aware", 4, "en", "For the backward pass, though, it stores the full P matrix from the forward in HBM.",
     "The backward recomputes S and P from the saved logsumexp instead of storing the full P matrix in HBM."),
    ("flashattention-io-aware", 4, "zh", "不过反向传播时它会把前向的完整 P 矩阵存到 HBM 里。", "反向重算 S 和 P，而不是把完整的 P 矩阵存到 HBM 里。"),
    ("split-reduction-atomics", 2, "zh", "tl.atomic_add 反而是确定的，因为硬件按 program id 的顺序执行同一地址上的原子操作。",
     "tl.atomic_add 不是确定的：同一地址上的加法顺序每次不同。"),
    ("split-reduction-atomics", 2, "en", "tl.atomic_add is deterministic: the hardware applies the adds in program id order.",
     "tl.atomic_add is not deterministic: the adds land in a different order each run."),
    ("xblock-warps-grid", 4, "en", "More warps mean more registers per thread, so they spill more.",
     "More warps mean fewer registers per thread, so they spill less."),
    ("xblock-warps-grid", 4, "zh", "warp 越多每个线程要的寄存器也越多，spill 就越多。", "warp 越多，每个线程的寄存器越少，spill 越少。"),
    ("tile-in-sram", 3, "en", "There's no real size limit on a block: any block shape works.",
     "Block shapes are limited: each dimension a power of two, at most 2^20 elements."),
    ("tile-in-sram", 3, "zh", "块大小没有限制，任意形状都行。", "块的形状有限制：每维 2 的幂，最多 2^20 个元素。"),
    ("vector-loads-int32-offsets", 3, "en", "Triton notices the tensor is huge and switches the offsets to int64 on its own.",
     "Triton does not switch the offsets to int64 on its own: cast pid to int64 first."),
    ("vector-loads-int32-offsets", 3, "zh", "张量超过 2^31 个元素时 Triton 会自己把 offsets 换成 int64。", "Triton 不会自己把 offsets 换成 int64，要先把 pid 转成 int64。"),
    ("online-softmax-rescale", 2, "en", "acc can skip the rescale, the final division by l fixes the scale.",
     "Both l and acc are rescaled by alpha; the final division by l cancels the common factor."),
    ("online-softmax-rescale", 2, "zh", "acc 不用缩放，最后除以 l 会修正回来。", "l 和 acc 都要用 alpha 缩放，最后除以 l 约掉公共因子。"),
]


@pytest.mark.parametrize("cid, n, lang, contrary, true", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_a_contrary_is_caught_and_the_true_sentence_with_the_same_words_is_not(cid, n, lang, contrary, true):
    assert f"{cid}:contrary-{n}" in contraries(cid, contrary, lang), contrary
    assert not contraries(cid, true, lang), true


def test_every_language_has_cases_and_cases_cover_several_checkpoints():
    assert {c[2] for c in CASES} == {"en", "zh"}
    assert len({c[0] for c in CASES}) >= 10


def test_the_message_says_what_was_said_and_what_is_true():
    s = scoring.score("why-mask", "The last tile runs past n, and masked lanes never touch memory. Without the mask "
                      "the GPU catches that right away, so it is an easy bug to notice.", "en")
    assert not s.passed
    w = [w for w in s.wrong_claims if w["id"] == "why-mask:contrary-3"][0]
    assert "catches that right away" in w["quote"]
    assert w["claim"].startswith("contradicts a key point: it fails silently")
    assert w["why"].startswith("In fact: out-of-bounds lanes usually fail silently") and "352 floats" in w["why"]
    zh = scoring.score("why-mask", "没有 mask 的话越界访问会立刻触发 illegal memory access。", "zh").wrong_claims
    assert any(x["claim"].startswith("与要点相反：") and x["why"].startswith("事实是：") for x in zh)


def test_a_contrary_fails_an_answer_that_covers_every_point():
    text = ("Eager writes S and P (S^2 elements) to HBM and reads them back; FlashAttention streams K and V through in "
            "blocks and keeps the scores on chip, so HBM only sees Q, K, V read and O written, and the speed comes from "
            "moving fewer bytes with the same FLOPs. For the backward pass, though, it stores the full P matrix from the "
            "forward in HBM, so training memory is still O(S^2).")
    s = scoring.score("flashattention-io-aware", text, "en")
    assert len(s.covered) >= s.need and not s.passed
    assert "flashattention-io-aware:contrary-4" in [w["id"] for w in s.wrong_claims]
    assert "wrong claim" in scoring.rule(s, "en")


@pytest.mark.parametrize("cid, lang, text", [
    # a negator jieba glues to the phrase (不是近似, 不改变结果) denies it
    ("flashattention-io-aware", "zh", "数学上一样，是精确的，不是近似。"),
    ("softmax-max-subtraction", "zh", "所以减行最大值不改变结果，还让所有指数都 <= 0。"),
    # "instead of" denies what follows, though "instead" ends a clause
    ("flashattention-io-aware", "en", "No SxS tensor in global memory, which also saves memory: O(S) extra instead of O(S^2)."),
    # reported speech and a rebuttal in the next clause
    ("capped-grid-vs-one-per-tile", "zh", "指南说小 grid 更快、grid 限制为 48，这不成立。"),
    ("capped-grid-vs-one-per-tile", "en", "The guide says the grid is capped at 48 programs, which is wrong."),
])
def test_denied_reported_or_rebutted_contraries_are_not_caught(cid, lang, text):
    assert not contraries(cid, text, lang), text


@pytest.mark.parametrize("cid, lang, text", [
    ("flashattention-io-aware", "en", "Approximate attention methods such as Linformer lose accuracy; FlashAttention is exact."),
    ("flashattention-io-aware", "en", "With causal masking it also skips most of the blocks above the diagonal."),
    ("fusion-saves-hbm-round-trip", "en", "Fusion does not change the FLOPs, only the bytes moved."),
    ("fusion-saves-hbm-round-trip", "en", "The result doesn't change, only the traffic."),
    ("why-mask", "en", "Without the mask an overrun can look harmless while it corrupts the neighbour."),
    ("compile-cache", "en", "The first call compiles everything from scratch: Dynamo, AOTAutograd, Inductor, Triton."),
    ("softmax-max-subtraction", "zh", "和近似方法不同，减最大值是精确的。"),
    ("xblock-warps-grid", "en", "There's no rule that num_warps must be at least XBLOCK/32."),
    ("flashattention-io-aware", "en", "Eager attention memory is O(S^2) because it materialises S."),
    ("flashattention-io-aware", "zh", "普通 attention 的显存也是 O(S²)。"),
    ("compiled-vs-eager-numerics", "en", "A test that demands bitwise equality with eager will fail."),
    ("tile-reuse", "en", "The step intensity is 2*BM*BN*BK / (2*BK*(BM+BN)) = BM*BN/(BM+BN)."),
    ("compile-chain", "zh", "Triton kernel 的求导由 AOTAutograd 负责。"),
    ("tile-in-sram", "en", "There is no limit on how many programs the grid can have, but a block has at most 2^20 elements."),
    ("why-mask", "en", "An unmasked kernel rarely crashes; it always fails silently."),
    ("why-mask", "en", "A lane-exact checker always catches it, a plain allclose does not."),
])
def test_true_sentences_in_a_contrarys_words_are_not_caught(cid, lang, text):
    assert not contraries(cid, text, lang), text


def test_a_glued_negator_is_read_where_jieba_joins_it():
    scoring.register_words()
    d = T.doc("是精确的，不是近似")
    start = d.text.index("近似")
    assert T.negated_before(d, 0, start)
    d = T.doc("结果是近似")
    assert not T.negated_before(d, 0, d.text.index("近似"))


def test_the_mock_review_names_a_contrary_in_the_session_language():
    s = scoring.score("why-mask", "没有 mask 的话越界访问会立刻触发 illegal memory access。")  # the mock scores in "en"
    w = [w for w in s.wrong_claims if w["id"] == "why-mask:contrary-3"][0]
    claim, why = scoring.claim_text("why-mask", w["id"], "zh")
    assert claim.startswith("与要点相反：错误是静默的") and why.startswith("事实是：越界的 lane 通常静默出错")
    assert scoring.claim_text("why-mask", "no-mask-errors", "zh")[0].startswith("没有 mask")
    assert scoring.claim_text("program-id-is-a-tile", "program-id-is-a-tile:denies-point-2", "zh")[0].startswith("否认了一个要点")
    assert scoring.claim_text("why-mask", "why-mask:contrary-99", "zh") is None


def test_fp8_needs_no_scaling_is_a_contrary_but_fp8_with_its_scales_is_not():
    """mixed-precision's fp8 contrary was `["fp8", no, "scale*"]`, which YAML read as the boolean false: now a
    phrase, so "fp8 needs no scaling" fails and a right answer about fp8's scales does not."""
    from coach.oral import scoring

    rest = " bf16 has the range of fp32, fp16 overflows above 65504, and tl.dot on fp32 defaults to tf32."
    assert not scoring.score("mixed-precision", "fp8 needs no scaling at all." + rest, "en").passed
    assert scoring.score("mixed-precision", "fp8 only works with per-tensor or per-block scaling factors." + rest,
                         "en").passed
