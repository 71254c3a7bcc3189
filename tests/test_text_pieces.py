"""Texts that leave the process they were made in: a check row's detail (kept in English in the verdict's JSON, its
pieces formatted again in the learner's language), a reason or a message made from a texts.yaml template in a child
(matched back, phrase fields too), a progress line, the state file's warnings and click's own words in --help."""
from __future__ import annotations

import re
from types import SimpleNamespace

from grader.core import catalog
from grader.reporting.i18n import check_detail, row_detail

HAN = re.compile(r"[\u4e00-\u9fff]")


def english_words(text: str) -> list[str]:
    """Lower-case English words of three letters or more (identifiers and units aside)."""
    return [w for w in re.findall(r"(?<![\w`.])[a-z]{3,}(?![\w`(])", text)
            if w not in {"eager", "cpu", "cuda", "ok", "ms", "graph", "kernel", "program", "store", "bytes", "block"}]


def test_a_calls_row_keeps_its_english_and_reads_in_chinese():
    from grader.run.runner import summarize_checks

    calls = [{"category": None, "size": [1, 1], "device": "cpu"},
             {"category": "error", "size": [1, 1], "device": "cpu"}]
    row = next(r for r in summarize_checks(calls) if r["name"] == "runs without error")
    assert row["detail"] == "1/2 calls failed, first at size [1, 1] on cpu"  # a size with spaces: no regex guess
    assert row_detail(row, "en") == row["detail"]
    assert row_detail(row, "zh") == "2 次调用中 1 次失败，首次在尺寸 [1, 1]（cpu）"


def test_compile_lab_rows_keep_their_english_and_read_in_chinese():
    from grader.families.compiled import check_detail as lab_detail

    unwrapped = catalog.text("check_details.unwrapped_launch", "en", kernel="add_relu_kernel")
    c = {"graphs": 1, "breaks": [], "compiles": 2, "shapes": [1000, 4097],
         "opcheck": {"test_schema": "SUCCESS", "test_faketensor": unwrapped}}
    rows = {name: catalog.detail(*lab_detail(name, [], c)) for name in
            ("no graph break (fullgraph=True)", "no recompile over the shapes", "opcheck passes")}
    assert [r["detail"] for r in rows.values()] == [
        "1 graph(s), 0 break(s)", "2 compile(s) over shapes [1000, 4097]", "test_schema: ok, test_faketensor: FAILED"]
    zh = [row_detail(r, "zh") for r in rows.values()]
    assert zh == ["1 个图，0 处断图", "在形状 [1000, 4097] 上编译了 2 次", "test_schema：通过，test_faketensor：失败"]
    # a reason Dynamo gave stays as Dynamo said it; drill's own FakeTensor message comes back in Chinese
    said = catalog.detail(*lab_detail("opcheck passes", [{"category": "fake", "reason": "Dynamo: no"}], {}))
    assert row_detail(said, "zh") == "-"
    reason = catalog.detail(*lab_detail("compiled values match", [{"category": "x", "reason": unwrapped}], {}))
    assert reason["detail"] == unwrapped and "FakeTensor 上被启动了" in row_detail(reason, "zh")
    learner = catalog.detail(*lab_detail("compiled values match", [{"category": "x", "reason": "boom at 3"}], {}))
    assert row_detail(learner, "zh") == "boom at 3"


def test_the_speed_gate_row_keeps_its_english_and_reads_in_chinese():
    from grader.families.fusion import apply_timing
    from grader.speed.timing import graphed_or_plain

    _, method = graphed_or_plain([], lambda m: None)  # no row to capture: CUDA-graph replay
    timing = {"rows": [{"ms": 1.0, "label": "yours"}, {"ms": 1.234, "label": "eager"}], "speedup": 1.234, "n": 4096, "speedup_min": 1.5, "method": method,
              "category": "too-slow"}
    v = SimpleNamespace(checks=[], passed=True, diagnosis=None, detail={}, line=None)
    apply_timing(v, [SimpleNamespace(result={"timing": timing})])
    row = v.checks[-1]
    assert row["name"] == "faster than eager (CUDA)" and not row["passed"]
    assert row["detail"] == "1.23x eager at n=4,096 (needs 1.5x); CUDA graph replay (device time)"
    assert row_detail(row, "zh") == "n=4,096 时是 eager 的 1.23x（要求 1.5x）；CUDA graph 重放（device 时间）"


def test_a_message_made_in_a_child_comes_back_translated_phrases_and_all():
    en = catalog.text("check_details.alloc_impossible", "en",
                      call=catalog.text("check_details.alloc_call_at_line", "en", name="empty", line=12),
                      asked="40.0 TB", shape="4096 x 4096", dtype="float32",
                      limit=catalog.text("check_details.alloc_on_cpu", "en", capacity="125.0 GB"))
    assert en.startswith("torch.empty at line 12 asks for 40.0 TB (4096 x 4096 float32), more than the 125.0 GB "
                         "available on this machine: no allocation")
    zh = check_detail(en, "zh")
    assert zh.startswith("第 12 行的 torch.empty 申请 40.0 TB（4096 x 4096 float32），超过了本机可用的 125.0 GB：")
    assert not english_words(zh.replace("torch.empty", "")), zh
    libdevice = catalog.text("check_details.libdevice_missing", "en", name="tanh", portable="tl.exp, tl.sqrt")
    assert check_detail(libdevice, "zh").startswith("libdevice.tanh 不能在 Triton 解释器里运行")
    # a learner's or torch's own message matches no template: it is shown as it was said
    for message in ("RuntimeError: boom at line 3", "3x faster at n=1", "index 5 is out of bounds"):
        assert check_detail(message, "zh") == message


def test_progress_lines_read_in_chinese_on_the_status_line():
    from coach.status import translated

    line = catalog.text("progress.calling_probe", "en", size="1x2x100x64", probe="large scores", seed=1)
    assert line == "calling your function at size 1x2x100x64 (large scores), seed 1"
    assert translated(line, "zh") == "调用你的函数，尺寸 1x2x100x64（large scores），种子 1"
    assert translated(line, "en") == line
    assert translated("4096x4096  round 2/5", "zh") == "4096x4096  第 2/5 轮"
    assert translated("something a learner printed", "zh") == "something a learner printed"


def test_the_state_files_warnings_follow_the_language(tmp_path, monkeypatch):
    from coach.store import Store

    for lang, word in (("zh", "状态文件已损坏"), ("en", "the state file was corrupt")):
        home = tmp_path / lang
        home.mkdir()
        (home / "state.json").write_text("[1, 2]", encoding="utf-8")
        monkeypatch.setenv("DRILL_LANG", lang)
        s = Store(home)
        s.read()
        assert len(s.warnings) == 1 and word in s.warnings[0], s.warnings


def test_clicks_own_words_in_an_options_help_read_in_chinese():
    from coach.help_zh import _click_extras_zh

    assert _click_extras_zh("几个练习。  [default: 1; x>=1]") == "几个练习。  [默认：1; x>=1]"
    assert _click_extras_zh("名字。  [required]") == "名字。  [必填]"
    assert _click_extras_zh("no bracket here") == "no bracket here"


def test_templates_read_back_have_no_two_fields_side_by_side():
    """Matching English back needs a literal between fields ("{name}{where}" has no one split) and some words of its
    own (a template that is a field alone matches any text): each template read back by catalog.from_english has."""
    import string

    for section in catalog.TEXT_FIELDS:
        for key, e in catalog.table(section).items():
            pieces = list(string.Formatter().parse(e["en"]))
            assert any(literal.strip() for literal, _, _, _ in pieces), f"{section}.{key} is a field alone"
            for (_, name, _, _), (literal, nxt, _, _) in zip(pieces, pieces[1:]):
                assert not (name and nxt and not literal), f"{section}.{key}: {{{name}}}{{{nxt}}}"
