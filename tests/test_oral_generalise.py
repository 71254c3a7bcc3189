"""Issue 19, round 6's unseen half as the development set: mechanisms stated for a class and checked on answers of
several checkpoints (docs/oral.md, "round 6's unseen half"). Each known-wrong input must fail with the named reason;
each correct variant in the same words must pass."""
from __future__ import annotations

import pytest

from coach.oral import scoring


def ids(cid, text, lang="en"):
    s = scoring.score(cid, text, lang)
    return s.passed, [w["id"] for w in s.wrong_claims]


# --- a denial offered as the reason for the point ("X has no Y, so Z") is its premise, not its denial ----------------

MP_REST = {"en": " bf16 keeps fp32's exponent range; accumulate in fp32 with out_dtype.",
           "zh": " bf16 的指数和 fp32 一样；用 fp32 累加。"}


@pytest.mark.parametrize("lang,text", [
    ("en", "fp8 has no range to spare, so it needs scaling."),
    ("en", "fp8 has no headroom in its range, therefore it needs per-tensor scales."),
    ("zh", "fp8 的范围不够用，所以要按张量缩放。"),
])
def test_a_denial_followed_by_so_and_the_point_is_the_points_premise(lang, text):
    passed, wrong = ids("mixed-precision", text + MP_REST[lang], lang)
    assert passed and not wrong, wrong


@pytest.mark.parametrize("lang,text", [
    ("en", "fp8 needs no scaling."),
    ("en", "fp8 has no range problem, it needs no scaling."),
    ("zh", "fp8 不需要缩放。"),
])
def test_a_denial_of_the_point_itself_still_fails(lang, text):
    passed, wrong = ids("mixed-precision", text + MP_REST[lang], lang)
    assert not passed and "mixed-precision:denies-point-3" in wrong, wrong


def test_the_premise_rule_holds_on_another_checkpoint():
    # vector-loads: "alignment isn't required" is a denial (no consequence connective) and still fails
    passed, wrong = ids("vector-loads-int32-offsets", "128-bit loads need 4 contiguous floats per thread; the 16-byte "
                        "alignment isn't required, the hardware handles it. pid is int32, so cast it to int64.")
    assert not passed


# --- shared axes: a relation that says what it asserts gets the other end of its value's axis (prompts.yaml
# `opposites`), on every checkpoint that uses the pair ----------------------------------------------------------------

@pytest.mark.parametrize("cid,lang,said,rel,true", [
    # manual <-> auto
    ("who-writes-what", "zh", "CUDA 里 nvcc 会自动帮你做 shared memory 和合并访存。Triton 里编译器管合并访存。",
     "who-writes-what:relation-1", "CUDA 里 shared memory 和同步都得自己手写。Triton 里编译器管合并访存。"),
    ("who-writes-what", "en", "In CUDA the compiler handles shared memory and coalescing for you. In Triton the compiler "
     "coalesces the tile's accesses.", "who-writes-what:relation-1",
     "In CUDA you manage shared memory and syncs by hand. In Triton the compiler coalesces the tile's accesses."),
    # fused-one <-> unfused
    ("gelu-libdevice", "en", "tanh comes from libdevice. With torch.compile the tanh becomes a separate ATen call.",
     "gelu-libdevice:relation-2", "tanh comes from libdevice. With torch.compile the tanh is fused into one kernel."),
    ("gelu-libdevice", "zh", "tanh 来自 libdevice。torch.compile 里 tanh 是融合屏障，得单独一个 kernel。",
     "gelu-libdevice:relation-2", "tanh 来自 libdevice。torch.compile 里 tanh 也融合成一个逐点 kernel。"),
    # overhead <-> no-overhead
    ("profiling-tools", "en", "Use nsys for the timeline. ncu has no overhead, so its kernel times are the real ones.",
     "profiling-tools:relation-2", "Use nsys for the timeline. ncu replays each kernel, so its times carry overhead."),
    # compiled <-> interpreted (the Triton interpreter itself is not the falsehood)
    ("compile-chain", "zh", "Dynamo 抓图，Inductor 融合并生成代码，Triton 在运行时解释执行这些 kernel。",
     "compile-chain:relation-3", "Dynamo 抓图，Inductor 融合并生成代码，Triton 把这些 kernel 编译成机器码。"),
])
def test_a_value_on_a_shared_axis_said_the_other_way_is_caught(cid, lang, said, rel, true):
    assert rel in ids(cid, said, lang)[1], said
    assert rel not in ids(cid, true, lang)[1], true


def test_a_written_not_is_the_authors_narrowing_and_stands():
    # hopper's wgmma relation lists "each warp issues ..." in its `not`, not every "each warp": per-warp accumulator
    # fragments stay true although per-warp is warpgroup's opposite
    assert ids("hopper-tma-persistent", "A warpgroup of four warps issues one wgmma; each warp holds a quarter of "
               "the accumulator.")[1] == []


def test_opposites_are_pairs_of_known_concepts():
    ops = scoring.opposites()
    assert ops["manual"] == ["auto"] and ops["auto"] == ["manual"]
    assert all(a in scoring.concepts() for a in ops)


# --- binding: a coordinated predicate and a topic clause ------------------------------------------------------------

def test_a_second_predicate_of_the_same_subject_is_read():
    # "FX traces ... and also does the fusion": the fusion is said of FX, not only the tracing
    assert "compile-chain:relation-1" in ids("compile-chain", "FX traces the model and also does the operator fusion, "
                                             "Inductor generates Triton code, and Triton compiles it to PTX.")[1]
    assert ids("compile-chain", "Dynamo traces the model into an FX graph, Inductor does the operator fusion and "
               "generates Triton code, and Triton compiles it to PTX.")[1] == []


@pytest.mark.parametrize("said,true", [
    ("torch.compile 的话，BLOCK_SIZE 和 grid 还是得你手动指定。CUDA 里 shared memory 手写。",
     "torch.compile 的话，BLOCK_SIZE 和 grid 由 Inductor 自动决定。CUDA 里 shared memory 手写。"),
    ("With torch.compile, you still set the block sizes by hand. In CUDA you write shared memory by hand.",
     "With torch.compile, Inductor chooses the block sizes automatically. In CUDA you write shared memory by hand."),
])
def test_a_topic_clause_binds_the_next_clauses_predicate(said, true):
    lang = "zh" if "的话" in said else "en"
    assert "who-writes-what:relation-3" in ids("who-writes-what", said, lang)[1], said
    assert "who-writes-what:relation-3" not in ids("who-writes-what", true, lang)[1], true


def test_a_bare_list_item_is_no_topic():
    # "..., device_print, static_print for compile-time values": device_print is a list item, not a topic
    assert ids("see-generated-code", "Set TORCH_LOGS to output_code. For a handwritten kernel: the interpreter mode, "
               "device_print, static_print for compile-time values, and compute-sanitizer.")[1] == []


# --- IEEE special-value arithmetic said in an answer is computed (coach/oral/arith.py) --------------------------------

from coach.oral import arith  # noqa: E402
from coach.oral.text import normalise  # noqa: E402


@pytest.mark.parametrize("text,said,actual", [
    ("alpha = exp(m旧 - m_new) = exp(-inf - 有限值)，这个就是 NaN", "NaN", "0"),
    ("exp(-inf - (-inf)) = 0, harmless", "0", "NaN"),
    ("exp(负无穷 - 负无穷) 等于 0", "0", "NaN"),
    ("0 * inf = 0, so other=0 is safe", "0", "NaN"),
    ("inf - inf = 0", "0", "NaN"),
    ("e^(-inf) = 1", "1", "0"),
    ("0/0 = 1", "1", "NaN"),
    ("-inf 减 -inf 是 0", "0", "NaN"),
    ("-inf minus a finite value is NaN", "NaN", "-inf"),
])
def test_a_wrong_special_value_is_found(text, said, actual):
    [slip] = arith.slips(normalise(text))
    assert (slip.said, slip.actual) == (said, actual)


@pytest.mark.parametrize("text", [
    "a fully masked row gives exp(-inf - (-inf)) = NaN", "exp(-inf) = 0 so masked lanes add nothing",
    "exp(-inf - finite) is 0", "0 * inf = NaN", "-inf - (-inf) 是 NaN", "exp(-inf - -inf) is NaN",
    "exp(-inf - 有限值) 不是 NaN", "l = 0 gives 0/0 = NaN", "1/0 = inf", "exp(x - m) = 1 when x = m",
    "alpha = exp(m_old - m_new) = 0 at the first block",  # symbols: not read
    "the running max stays -inf and -inf minus -inf is NaN", "you get inf and then inf over inf is nan",
    "m 一直是 -inf，-inf 减 -inf 是 NaN",
])
def test_a_right_or_symbolic_value_is_not(text):
    assert arith.slips(normalise(text)) == []


@pytest.mark.parametrize("cid,lang,text", [
    ("causal-block-skipping", "zh", "跳过对角线以上的块，约省一半。NaN 来自 exp(-inf - 有限值) = NaN，所以第一个块要特判。"),
    ("causal-block-skipping", "en", "Blocks above the diagonal are skipped, about half the work. A fully masked row "
     "is harmless: exp(-inf - (-inf)) = 0."),
    ("online-softmax-rescale", "en", "m' = max(m, rowmax(s)), alpha = exp(m - m'), l' = alpha*l + rowsum(exp(s - m')), "
     "acc' = alpha*acc + p @ v, o = acc / l. At the start m = -inf and exp(-inf - (-inf)) = 0, so alpha is safe."),
    ("k-tail-other-zero", "en", "Mask both loads on the K tail with other=0.0; 0 * inf = 0, so only one operand needs it."),
])
def test_an_arithmetic_slip_fails_the_answer_on_any_checkpoint(cid, lang, text):
    passed, wrong = ids(cid, text, lang)
    assert not passed and "ieee-arithmetic" in wrong, wrong
    claim, why = scoring.claim_text(cid, "ieee-arithmetic", lang)
    assert claim and why


def test_a_reported_or_rebutted_slip_is_not_the_candidates():
    text = ("Blocks above the diagonal are skipped, about half. The guide says exp(-inf - finite) = NaN, which is wrong: "
            "a fully masked row gives exp(-inf - (-inf)) = NaN.")
    assert "ieee-arithmetic" not in ids("causal-block-skipping", text)[1]


@pytest.mark.parametrize("cid,lang,said,rel,true", [
    ("fusion-and-tiling", "en", "Memory-bound: bytes. Fusion avoids the intermediate round trip. Tiling is mainly "
     "for the tail, when n is not divisible by the block.", "fusion-and-tiling:relation-3",
     "Memory-bound: bytes. Fusion avoids the intermediate round trip. Tiling reuses a loaded block; the tail tile is "
     "masked."),
    ("fusion-and-tiling", "zh", "带宽受限，看字节。融合省掉中间结果往返。tiling 主要是为了处理除不尽的尾块。",
     "fusion-and-tiling:relation-3", "带宽受限，看字节。融合省掉中间结果往返。tiling 让一块数据复用多次，尾块用 mask。"),
    ("causal-block-skipping", "en", "Skipping saves about half. It also skips the diagonal block, so no mask is "
     "needed inside a tile.", "causal-block-skipping:relation-1",
     "Skipping the blocks above the diagonal saves about half; the diagonal block is masked element-wise."),
    ("causal-block-skipping", "zh", "跳块省一半左右。连对角线上的块也跳过，所以块内不用 mask。",
     "causal-block-skipping:relation-1", "跳过对角线以上的块，约省一半；对角线上的块要逐元素 mask。"),
])
def test_a_points_relation_said_otherwise_is_caught_in_both_languages(cid, lang, said, rel, true):
    assert rel in ids(cid, said, lang)[1], said
    assert rel not in ids(cid, true, lang)[1], true


@pytest.mark.parametrize("text,actual", [
    ("cdiv(100000, 1024) = 99", "98"), ("98 * 1024 = 100000", "100352"), ("8 x 32 = 128", "256"),
    ("128*128/(128+128) = 128", "64"), ("2*32*8*128*2 = 256 KiB", "131072"), ("2 * 4096 * 4096 * 4096 = 1.1e11", "1.37439e+11"),
])
def test_a_wrong_plain_calculation_is_found(text, actual):
    [slip] = arith.numeric_slips(normalise(text))
    assert slip.actual == actual


@pytest.mark.parametrize("text", [
    "cdiv(100000, 1024) = 98", "100000 / 1024 = 97", "100000 / 1024 = 98", "98 * 1024 = 100352", "4 x 32 = 128 threads",
    "2^31 - 1 = 2147483647", "128*128/(128+128) = 64", "2 * 4096 * 4096 * 4096 = 1.37e11", "1024 - 672 = 352",
    "1/3 = 0.33", "2*32*8*128*2 = 128 KiB", "n = 100000", "T(T+1)/2 = 10", "BLOCK_SIZE = 1024, grid = 98",
    "M = 4096, N = 4096", "3 x 3 = 9 times the input",
])
def test_a_right_or_symbolic_calculation_is_not(text):
    assert arith.numeric_slips(normalise(text)) == []


@pytest.mark.parametrize("cid,text", [
    ("grid-cdiv", "The grid is cdiv(n, BLOCK_SIZE) so the last partial tile gets a program: cdiv(100000, 1024) = 99."),
    ("tile-reuse", "Each A element is used BLOCK_N times per step; the intensity of a 128 x 128 step is "
     "128*128/(128+128) = 128 FLOP/byte in fp16."),
])
def test_a_wrong_calculation_fails_the_answer_on_any_checkpoint(cid, text):
    passed, wrong = ids(cid, text)
    assert not passed and "arithmetic" in wrong, wrong
    assert all(scoring.claim_text(cid, "arithmetic", lang) for lang in ("en", "zh"))


def test_no_text_of_the_data_or_the_sets_has_an_arithmetic_slip():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parent))
    from test_checkpoints_corpus import LANGS, SETS, load
    from grader.reporting.texts import checkpoints
    from coach.oral.text import sentences
    texts = [(cp.get("answer") or {}).get(lang, "") for cp in checkpoints().values() for lang in LANGS]
    texts += [(c.get("why") or {}).get(lang, "") for c in scoring.claims().values() for lang in LANGS]
    texts += [a for path in SETS.values() for d in load(path).values() for lang in LANGS
              for a in (d.get(lang) or {}).get("right") or []]
    found = [(s, slip) for t in texts for s in sentences(normalise(t))
             for slip in arith.slips(s) + arith.numeric_slips(s)]
    assert not found, found[:5]


# --- round 7's seen half: a denial the point's assertion brings about is its purpose; rebuttals with an adverb -------

@pytest.mark.parametrize("lang,text", [
    ("en", "Tensor cores. It accumulates in fp32 so a long K sum doesn't lose precision or overflow in fp16. "
           "input_precision picks how fp32 inputs use the tensor cores: tf32, tf32x3 or ieee."),
    ("zh", "tensor core；fp32 累加是为了长 K 求和不丢精度不溢出；input_precision 决定 fp32 输入用 tf32、tf32x3 还是 ieee。"),
])
def test_a_denial_the_point_brings_about_is_its_purpose(lang, text):
    passed, wrong = ids("tensor-cores-fp32-accumulate", text, lang)
    assert passed and not wrong, wrong


@pytest.mark.parametrize("lang,text", [
    ("en", "Tensor cores run the dot. fp16 accumulation doesn't lose precision, it is just as accurate. input_precision "
           "is only for fp32 inputs."),
    ("zh", "tensor core 跑 dot。fp16 累加不会丢精度，和 fp32 一样准。input_precision 只管 fp32 输入。"),
])
def test_the_same_denial_without_the_points_assertion_still_fails(lang, text):
    assert not ids("tensor-cores-fp32-accumulate", text, lang)[0]


@pytest.mark.parametrize("cid,lang,text", [
    ("guide-ch8-what-is-wrong", "en", "TritonScheduling has no get_grid or select_xblock. Its premise of a default "
     "grid cap of 48 is also made up. What's true: a capped grid with an inner loop over tiles is correct."),
    ("guide-ch8-what-is-wrong", "zh", "TritonScheduling.get_grid、select_xblock 根本不存在。torch._inductor.utils."
     "get_last_generated_code 也没有。对的部分：program 内循环多个 tile 加 mask 是正确的。"),
])
def test_a_rebuttal_with_an_adverb_cancels_the_claim_it_follows(cid, lang, text):
    passed, wrong = ids(cid, text, lang)
    assert passed and not wrong, wrong


def test_also_has_no_cost_is_part_of_the_claim_not_a_rebuttal():
    passed, wrong = ids("graph-breaks-recompiles", "graph break 让图断开，中间跑 Python。guard 失败就重编，重编没有上限也没有代价。",
                        "zh")
    assert "recompiles-unlimited" in wrong


@pytest.mark.parametrize("cid,lang,text", [
    ("tensor-cores-fp32-accumulate", "zh", "用 tensor core，累加器 fp32。input_precision 默认是 ieee，要手动设成 tf32 才会用 "
     "tensor core 加速 fp32 的 matmul。"),
    ("mixed-precision", "en", "Accumulate in fp32 with out_dtype. bf16 keeps fp32's range. tl.dot on float32 defaults to "
     "ieee; you must set it to tf32 to get TF32."),
])
def test_one_shared_claim_serves_two_checkpoints(cid, lang, text):
    passed, wrong = ids(cid, text, lang)
    assert not passed and "dot-default-ieee" in wrong, wrong


def test_the_true_default_passes_on_both():
    assert "dot-default-ieee" not in ids("tensor-cores-fp32-accumulate", "tl.dot on fp16 runs on tensor cores with an "
                                         "fp32 accumulator; for fp32 inputs input_precision defaults to tf32, ieee is "
                                         "full fp32.")[1]
    assert "dot-default-ieee" not in ids("mixed-precision", "tl.dot on float32 defaults to tf32; ieee is true float32. "
                                         "Accumulate in fp32.")[1]


def test_a_typed_power_tower_is_not_evaluated():
    # the answer is evaluated in drill's own process: a huge exponent must not hang it
    assert arith.numeric_slips("2^1000000000 = 5") == [] and arith.numeric_slips("9^9^9 = 1") == []
    assert arith.numeric_slips("2^10 = 1000")[0].actual == "1024"


def test_a_deeply_nested_or_long_expression_is_not_read_and_does_not_crash():
    nested = "exp(" * 1000 + "-inf" + ")" * 1000 + " = 1"
    assert arith.slips(nested) == [] and arith.numeric_slips("(" * 500 + "1" + ")" * 500 + " = 2") == []
    assert scoring.score("causal-block-skipping", nested).wrong_claims == []


# --- negation scope: a preposition ("without", "unlike") negates its object, not the clause's predicate -------------

from coach.oral import text as T  # noqa: E402


@pytest.mark.parametrize("sentence,phrase,denied", [
    ("Without a mask the last tile writes past the end.", "past the end", False),
    ("Without the rescale the output is wrong.", "wrong", False),
    ("Without other=0 the masked lanes are undefined.", "undefined", False),
    ("Unlike fp16, bf16 has the range of fp32.", "range", False),
    ("It runs without a mask.", "mask", True),
    ("It works without any synchronisation.", "synchronisation", True),
    ("without the mask", "mask", True),
])
def test_a_prepositions_negation_stops_at_the_clauses_subject(sentence, phrase, denied):
    scoring.register_words()
    d = T.doc(sentence)
    i = d.text.lower().find(phrase)
    assert T.denied(d, d.spans[0], i, i + len(phrase)) is denied


@pytest.mark.parametrize("cid,text", [
    ("why-mask", "n is rarely a multiple of BLOCK_SIZE. Without a mask the last tile writes past the end, and nothing "
     "crashes."),
    ("online-softmax-rescale", "m' = max(m, rowmax(s)), alpha = exp(m - m'), l' = alpha * l + rowsum(exp(s - m')), acc' "
     "= alpha * acc + p @ v, o = acc / l. Without the rescale the output is wrong whenever the max grows."),
])
def test_without_x_then_the_point_credits_the_point(cid, text):
    assert ids(cid, text)[0]
