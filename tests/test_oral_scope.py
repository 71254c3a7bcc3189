"""coach/oral: a key point is credited only where it is asserted (negation and scope in both languages), known-wrong
claims are found by their meaning's parts, the pass rule is said in words, and the matchers behave the same on an
English text and its Chinese translation. The named wrong answers come from issue 19 (a blind holdout and an audit)."""
from __future__ import annotations

import pytest

from coach.oral import scoring, text as T
from grader.reporting.texts import checkpoints

CHECKPOINTS = checkpoints()


def state(term, text):
    scoring.register_words()
    d = T.doc(text)
    states = {scoring._alt_state(d, scoring._compile_alt(a)) for a in scoring.expand(term)}
    return "asserted" if "asserted" in states else "denied" if "denied" in states else None


# ------------------------------------------------------------------------------------------------- scope

@pytest.mark.parametrize("term, text, expected", [
    ("alignment", "Alignment matters: 16 bytes.", "asserted"),
    ("alignment", "Alignment doesn't matter on modern GPUs.", "denied"),
    ("alignment", "Alignment doesn't really matter.", "denied"),
    ("对齐", "对齐其实无所谓。", "denied"),
    ("对齐", "还要 16 字节对齐。", "asserted"),
    ("对齐", "不需要对齐。", "denied"),
    ("cast*", "There is no need to cast pid.", "denied"),
    ("cast*", "Cast pid to int64 first.", "asserted"),
    ("out of bounds", "No mask means out of bounds reads.", "asserted"),     # "means" starts a new scope
    ("越界", "不加 mask 会越界访问。", "asserted"),                              # 会 starts a new scope
    ("越界", "有 mask 就不会越界。", "denied"),
    ("tail", "It is not only the tail.", "asserted"),                      # "not only" affirms
    ("尾块", "不仅是尾块。", "asserted"),
    ("program", "不同的 program 各算一块。", "asserted"),                      # 不同 is not a negation
    ("speed", "It is not about speed but correctness.", "denied"),
    ("correctness", "It is not about speed but correctness.", "asserted"),  # not X but Y asserts Y
    ("正确性", "不是为了速度，而是为了正确性。", "asserted"),
    ("!associativ*", "fp add is not associative.", "asserted"),
    ("!associativ*", "Float addition is non-associative.", "asserted"),
    ("!associativ*", "fp add is associative.", "denied"),
    ("!结合律", "浮点加法不满足结合律。", "asserted"),
    ("!结合律", "浮点加法结合律不成立。", "asserted"),
    ("!结合律", "浮点加法满足结合律。", "denied"),
    ("块", "尾块没有 program。", "asserted"),                                  # a word inside a compound is kept
    ("不满", "它不满足结合律。", None),                                        # 不满 would cut 满足: not a match
])
def test_a_term_counts_only_where_asserted(term, text, expected):
    assert state(term, text) == expected, (term, text)


def test_chinese_subscripts_read_as_notation():
    assert T.normalise("m新 = max(m旧, rowmax(s))，l新 = alpha·l旧") == "m_new = max(m_old, rowmax(s)),l_new = alpha*l_old"
    assert T.normalise("在 K 前面") == "在 K 前面"


def test_the_same_phrase_no_longer_credits_a_second_point():
    # issue 19: "the last tile runs past n" passed why-mask 2/3 (it never says what the mask prevents), and the
    # Chinese "最后一块越过 n" failed: now both languages agree, on 1/3
    for lang, answer in (("en", "the last tile runs past n"), ("zh", "最后一块越过 n")):
        s = scoring.score("why-mask", answer, lang)
        assert not s.passed and s.covered == [0], (lang, s.points)


# ------------------------------------------------------------------------------------------------- named wrong claims

WRONG = [  # (checkpoint, lang, answer with true points and one key falsehood, the claim that fails it)
    ("vector-loads-int32-offsets", "en", "128-bit loads need 4 floats per thread; alignment doesn't matter. pid * BLOCK "
     "overflows int32, cast to int64.", "vector-loads-int32-offsets:denies-point-1"),
    ("vector-loads-int32-offsets", "zh", "128 位 load 要每线程 4 个 float，对齐无所谓。pid * BLOCK 会溢出 int32，要先转 int64。",
     "vector-loads-int32-offsets:denies-point-1"),
    ("vector-loads-int32-offsets", "en", "Each thread needs 4 contiguous floats and 16-byte alignment, which Triton learns "
     "by specialising on divisibility by 16. An int64 n makes the offsets int64.", "offsets-promoted-to-int64"),
    ("vector-loads-int32-offsets", "zh", "每线程 4 个连续 float、16 字节对齐，靠被 16 整除的特化。n 是 int64 的话 offsets 也就是 int64 了。",
     "offsets-promoted-to-int64"),
    ("split-reduction-atomics", "en", "Split the reduction across programs and combine partials with atomics or a second "
     "kernel. fp add is associative, so atomics are reproducible.", "fp-add-associative"),
    ("split-reduction-atomics", "zh", "把归约拆到多个 program，用原子操作或第二个 kernel 合并。浮点加法是可结合的，所以顺序无所谓。",
     "fp-add-associative"),
    ("launch-overhead-cuda-graphs", "en", "Launch overhead is the host cost per kernel. CUDA graphs speed up the kernels "
     "themselves. reduce-overhead uses them; shapes must be static.", "cuda-graphs-faster-kernels"),
    ("launch-overhead-cuda-graphs", "zh", "启动开销是每个 kernel 的主机端开销。CUDA graph 加速 kernel 本身。reduce-overhead 就是用它；形状要固定。",
     "cuda-graphs-faster-kernels"),
    ("graph-breaks-recompiles", "en", "A graph break ends the graph and runs Python. Guards fail on new shapes and "
     "recompile; recompiles are unlimited and free.", "recompiles-unlimited"),
    ("graph-breaks-recompiles", "zh", "graph break 让图断开，中间跑 Python。guard 失败就重编，重编没有上限也没有代价。",
     "recompiles-unlimited"),
    ("profiling-tools", "en", "Use nsys to see per-kernel occupancy and stall reasons, and ncu for the timeline of the "
     "whole process. do_bench for timing, torch.profiler for ops.", "profiler-roles-swapped"),
    ("profiling-tools", "zh", "nsys 看单个 kernel 的占用率和 stall，ncu 看整个进程的时间线。计时用 do_bench，算子级用 torch.profiler。",
     "profiler-roles-swapped"),
    ("mixed-precision", "en", "fp32 matmuls default to tf32 in Triton. fp16 inputs use an fp32 accumulator. tl.sum "
     "automatically accumulates in fp32, no cast needed.", "sum-upcasts-itself"),
    ("mixed-precision", "zh", "fp32 矩阵乘默认走 tf32。半精度输入用 fp32 累加器。tl.sum 会自动在 fp32 里累加，不用手动转。",
     "sum-upcasts-itself"),
    ("xblock-warps-grid", "en", "XBLOCK is elements per program, the grid is cdiv(n, XBLOCK). num_warps is set from "
     "XBLOCK/32.", "warps-from-xblock"),
    ("xblock-warps-grid", "zh", "XBLOCK 是每个 program 的元素数，grid = cdiv(n, XBLOCK)。num_warps 按 XBLOCK/32 来定。",
     "warps-from-xblock"),
    ("compile-chain", "en", "Dynamo captures the FX graph, Inductor fuses and generates Triton, Triton compiles to PTX "
     "and cubin. Triton needs no backend, PTX runs anywhere.", "ptx-runs-anywhere"),
    ("compile-chain", "zh", "Dynamo 抓 FX 图，Inductor 融合并生成 Triton，Triton 编译成 PTX 和 cubin。Triton 不需要后端，PTX 在任何 GPU 上都能跑。",
     "ptx-runs-anywhere"),
    ("occupancy-warps-stages", "en", "Occupancy is resident warps over the maximum. More warps means more registers per "
     "thread, so raising num_warps causes spills. num_stages pipelines loads through shared memory.",
     "warps-more-registers"),
    ("occupancy-warps-stages", "zh", "占用率是驻留 warp 数除以上限。warp 越多每个线程的寄存器也越多，所以容易 spill。num_stages 用 shared memory 做流水。",
     "warps-more-registers"),
]


@pytest.mark.parametrize("cid, lang, answer, claim", WRONG, ids=[f"{w[0]}-{w[1]}-{i}" for i, w in enumerate(WRONG)])
def test_one_key_falsehood_fails_an_answer_and_is_named(cid, lang, answer, claim):
    s = scoring.score(cid, answer, lang)
    assert not s.passed
    (w,) = [w for w in s.wrong_claims if w["id"] == claim] or [None]
    assert w is not None, (claim, [x["id"] for x in s.wrong_claims])
    assert w["why"] and w["quote"] and w["quote"] in T.normalise(answer)
    assert "wrong claim" in scoring.rule(s, "en") and "错误说法" in scoring.rule(s, "zh")


RIGHT = [  # the same topics said correctly, negations included: they must pass
    ("vector-loads-int32-offsets", "en", "128-bit loads need 4 contiguous floats per thread and 16-byte alignment, which "
     "Triton learns by specialising arguments divisible by 16. pid is int32 even when n is int64, so cast pid to int64."),
    ("vector-loads-int32-offsets", "zh", "128 位 load 要每线程 4 个连续 float、16 字节对齐，靠被 16 整除的特化。n 是 int64 时 pid 还是 int32，要自己转 int64。"),
    ("split-reduction-atomics", "en", "Split the reduction: partials from many programs, then a second kernel or atomics. "
     "fp add is not associative, so atomics change the last bits run to run; use a fixed-order reduction to be deterministic."),
    ("split-reduction-atomics", "zh", "拆分归约：多个 program 算部分和，再用第二个 kernel 或原子操作合并。浮点加法不满足结合律，原子加的结果最后几位每次可能不同，要确定性就用固定顺序归约。"),
    ("launch-overhead-cuda-graphs", "en", "Launch overhead is a fixed host cost per kernel, which dominates small "
     "kernels. CUDA graphs don't make the kernels themselves faster; they replay the launches and cut that overhead. "
     "reduce-overhead needs static shapes and buffers."),
    ("launch-overhead-cuda-graphs", "zh", "启动开销是每个 kernel 固定的主机端开销，小 kernel 时占大头。CUDA graph 不会让 kernel 本身变快，它重放录好的启动，省掉这部分开销。reduce-overhead 要求形状和 buffer 固定。"),
    ("profiling-tools", "en", "nsys gives the timeline of the whole process, ncu the per-kernel metrics like occupancy "
     "and stalls. do_bench for timing, torch.profiler for ops."),
    ("profiling-tools", "zh", "nsys 看整个进程的时间线，ncu 看单个 kernel 的占用率和 stall。计时用 do_bench，算子级用 torch.profiler。"),
]


@pytest.mark.parametrize("cid, lang, answer", RIGHT, ids=[f"{r[0]}-{r[1]}-{i}" for i, r in enumerate(RIGHT)])
def test_the_same_topics_said_right_pass(cid, lang, answer):
    s = scoring.score(cid, answer, lang)
    assert s.passed, ([w["id"] for w in s.wrong_claims], s.points)


# ------------------------------------------------------------------------------------------------- the rule in words

def test_the_rule_says_how_many_points_and_why():
    s = scoring.score("why-mask", "the last tile runs past n")
    assert scoring.rule(s) == ("needs 2 of 3 key points (half, rounded up) and no wrong claim; failed: 1 of 3 found, "
                               "2 needed")
    z = scoring.score("why-mask", "最后一块越过 n", "zh")
    assert scoring.rule(z, "zh") == "需要 3 个要点中的 2 个（一半，向上取整），且没有错误说法；未通过：只找到 1/3 个要点，需要 2 个"
    req = scoring.score("online-softmax-rescale", "m' = max(m, rowmax(s)); o = acc / l at the end.")
    assert "including “alpha" in scoring.rule(req) and "required point" in scoring.rule(req)
    assert scoring.rule(scoring.score("why-mask", " ")) .endswith("failed: nothing was typed")


# ------------------------------------------------------------------------------------------------- both languages

@pytest.mark.parametrize("cid", sorted(CHECKPOINTS))
def test_matchers_agree_on_an_english_text_and_its_chinese_translation(cid):
    """The model answer and each key point's own wording exist in both languages, as translations: each point must
    be found in both or in neither."""
    cp = CHECKPOINTS[cid]
    pairs = [(cp["answer"]["en"], cp["answer"]["zh"])] + [(r["point"]["en"], r["point"]["zh"]) for r in cp["rubric"]]
    for i, (en, zh) in enumerate(pairs):
        fe = [p["found"] for p in scoring.score(cid, en, "en").points]
        fz = [p["found"] for p in scoring.score(cid, zh, "zh").points]
        if i == 0:
            assert fe == fz and all(fe), (cid, fe, fz)
        else:
            assert fe[i - 1] and fz[i - 1], (cid, i, en, zh, fe, fz)


# ------------------------------------------------------------------------------------------------- the mock

def test_the_mock_scorecard_says_the_rule_and_that_aloud_is_not_checked(tmp_path):
    from coach.mock import interview as M
    from coach.mock.tui import scorecard_tables
    from tests.test_mock import setup

    mock, clock, _ = setup(tmp_path, qids=["why-mask", "grid-cdiv", "why-mask"])
    script = [(3, ""),                                   # submit the code round
              (5, "the last tile runs past n"), (6, "5"),     # typed: 1/3, needs 2, fails whatever the rating
              (8, ""), (9, "4"),                             # said aloud: self-rated, and says so
              (10, "n is rarely a multiple of BLOCK_SIZE, so the last tile runs past the end; the mask keeps those "
                   "lanes from reading or writing out of bounds."), (11, "2")]   # 2/3 but self-rated 2
    card = M.run(mock, M.ScriptedInput(clock, script), poll_s=1)
    typed, aloud, low = card["oral"]
    assert not typed["passed"] and typed["rule"]["en"] == "1/3 points, needs 2"
    assert aloud["passed"] and aloud["rule"]["en"] == "self-rated 4/5, not checked" and "未经检查" in aloud["rule"]["zh"]
    assert not low["passed"] and low["rule"]["en"] == "2/3 points; self-rating 2/5, needs 3"
    reviews = [d["q"] for k, d in mock.events if k == "review"]
    from coach.oral import verdict
    assert verdict.review_line(reviews[0].score, True, "en").startswith("Rule: needs 2 of 3 key points")
    assert "did not check" in verdict.review_line(None, False, "en")
    from io import StringIO
    from rich.console import Console
    out = StringIO()
    Console(file=out, width=200).print(*scorecard_tables(card, "en"))
    assert "self-rated 4/5, not checked" in out.getvalue() and "1/3 points, needs 2" in out.getvalue()


def test_a_missing_segmenter_degrades_to_the_fallback_and_says_so(monkeypatch):
    """The GPU image has no jieba: a Chinese answer is still scored (the fallback segmenter), the output says so, and
    on these answers the verdict is jieba's."""
    import builtins
    from click.testing import CliRunner
    import cli

    answers = ["最后一块越界读写",
               "n 往往不是 BLOCK_SIZE 的倍数，最后一块会越过末尾。mask 把这些 lane 关掉，被 mask 的 lane 不访问内存；"
               "没有 mask 就越界读写，而且不一定崩溃，数值可能照样通过。",
               "最后一块越过 n，mask 把 lane 关掉，不访问内存。没有 mask 的话越界访问会立刻触发 illegal memory access，程序直接挂掉。",
               "mask 主要是为了性能，不加只是慢一点。"]
    with_jieba = [CliRunner().invoke(cli.main, ["checkpoints", "why-mask", "--lang", "zh", "--answer", a]).exit_code
                  for a in answers]
    assert with_jieba == [0, 0, 1, 1]
    real = builtins.__import__

    def no_jieba(name, *a, **k):
        if name == "jieba":
            raise ImportError("no jieba here")
        return real(name, *a, **k)
    T._jieba.cache_clear()
    monkeypatch.setattr(builtins, "__import__", no_jieba)
    try:
        assert T.segmenter() == "fallback"
        for a, code in zip(answers, with_jieba):
            r = CliRunner().invoke(cli.main, ["checkpoints", "why-mask", "--lang", "zh", "--answer", a])
            assert r.exit_code == code and "pip install jieba" in r.output and "Traceback" not in r.output, r.output
            assert ("未通过" in r.output) == (code == 1)
        assert scoring.score("why-mask", "不需要对齐", "zh").segmenter == "fallback"
        r = CliRunner().invoke(cli.main, ["checkpoints", "why-mask", "--answer", "the last tile runs past n"])
        assert r.exit_code == 1 and "jieba" not in r.output  # an English answer needs no segmenter
    finally:
        monkeypatch.undo()
        T._jieba.cache_clear()
