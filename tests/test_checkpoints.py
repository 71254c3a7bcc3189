"""The spoken-answer checkpoints in prompts.yaml: complete in both languages, linked, and true for the installed
torch / triton — every API name an answer quotes resolves, and none of the guide's wrong names or claims is repeated
except where the answer says the guide is wrong."""
from __future__ import annotations

import importlib
import re

import pytest
from click.testing import CliRunner

from grader.reporting import texts

CHECKPOINTS = texts.checkpoints()
DRILLS = texts.load().get("drills", {})
LANGS = ("en", "zh")

# --------------------------------------------------------------------------------------------------------------------
# Resolving dotted names in the installed versions


def resolve(name: str):
    """Import the longest importable module prefix of NAME, then getattr the rest. Raises if anything is missing.

    Works for config entries too: torch._inductor.config.triton.max_tiles is getattr(config module, 'triton') and
    then getattr(..., 'max_tiles'); the config module raises AttributeError for names it does not have."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(name)


def resolves(name: str) -> bool:
    try:
        resolve(name)
        return True
    except (ImportError, AttributeError):
        return False


# --------------------------------------------------------------------------------------------------------------------
# The guide's errors. Each entry: label, regex over answer text, and (for names) the dotted name that must NOT resolve.

_A = r"(?<![A-Za-z0-9_.])"   # ASCII-only boundaries: Python's \b treats CJK characters as word characters
_Z = r"(?![A-Za-z0-9_])"
DENYLIST = [
    ("tl.libdevice", _A + r"(?:tl|triton\.language)\.libdevice" + _Z, "triton.language.libdevice"),
    ("triton.Config.enable_debug", _A + r"(?:triton\.Config\.)?enable_debug" + _Z, "triton.Config.enable_debug"),
    ("torch._inductor.config.triton.autotune", r"config\.triton\.autotune" + _Z,
     "torch._inductor.config.triton.autotune"),
    ("torch._inductor.config.trace.log_output_code", _A + r"(?:[\w.]*\.)?log_output_code" + _Z,
     "torch._inductor.config.trace.log_output_code"),
    ("torch._inductor.utils.get_last_generated_code", _A + r"(?:[\w.]*\.)?get_last_generated_code" + _Z,
     "torch._inductor.utils.get_last_generated_code"),
    ("num_warps >= XBLOCK/32", r"num_warps\s*(?:>=|≥)\s*XBLOCK\s*/\s*32", None),
    ("one element per thread",
     r"(?:each|every|one) thread (?:handles|processes|computes|does) (?:one|1|a single) element"
     r"|每个\s*(?:thread|线程)\s*(?:处理|负责|计算)\s*(?:1|一)\s*个元素", None),
    ("grid limited to 48", r"(?:limited to|capped at|limit of|限制为|限制在|上限为?)\s*48(?![0-9])", None),
    ("max_tiles = tiles per SM", r"max_tiles[^.。\n]{0,80}(?:per SM|每个 ?SM)", None),
    ("TritonScheduling.get_grid", r"TritonScheduling\.get_grid" + _Z, "torch._inductor.codegen.triton.TritonScheduling.get_grid"),
    ("TritonScheduling.select_xblock", r"TritonScheduling\.select_xblock" + _Z,
     "torch._inductor.codegen.triton.TritonScheduling.select_xblock"),
]
DENIED_NAMES = [n for _, _, n in DENYLIST if n]

GUIDE = re.compile(r"guide|指南", re.I)
NEGATION = re.compile(r"does not exist|do not exist|doesn't exist|no such|is wrong|are wrong|is not|isn't|not what"
                      r"|不存在|是错的|错的|不对|不是", re.I)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+|[。！？\n]")


def sentences(text: str) -> list[str]:
    return [s for s in SENTENCE_END.split(text) if s.strip()]


def denylist_violations(text: str) -> list[tuple[str, str]]:
    """(label, sentence) for each sentence that repeats a guide error without saying the guide is wrong there."""
    bad = []
    for sentence in sentences(text):
        for label, pattern, _ in DENYLIST:
            if re.search(pattern, sentence) and not (GUIDE.search(sentence) and NEGATION.search(sentence)):
                bad.append((label, sentence))
    return bad


QUOTED = re.compile(r"(?<![A-Za-z0-9_.])(?:torch|triton|tl)(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


def quoted_names(text: str) -> set[str]:
    """Dotted torch/triton names in TEXT, with tl. spelled triton.language."""
    out = set()
    for m in QUOTED.findall(text):
        out.add("triton.language." + m[3:] if m.startswith("tl.") else m)
    return out


def all_text(cp: dict) -> str:
    parts = [cp["question"][lang] for lang in LANGS] + [cp["answer"][lang] for lang in LANGS]
    return "\n".join(parts)


# --------------------------------------------------------------------------------------------------------------------
# (1) every checkpoint complete in both languages


def test_there_are_checkpoints_for_both_guides():
    assert len(CHECKPOINTS) >= 20
    guides = {cp.get("source", {}).get("guide") for cp in CHECKPOINTS.values()}
    assert any(g and g.startswith("000_") for g in guides)
    assert any(g and g.startswith("001_") for g in guides)
    for cid in ("grid-cdiv", "offsets-from-pid", "why-mask", "program-id-is-a-tile"):  # ids others rely on
        assert cid in CHECKPOINTS


@pytest.mark.parametrize("cid", sorted(CHECKPOINTS))
def test_checkpoint_complete_in_both_languages(cid):
    cp = CHECKPOINTS[cid]
    for field in ("question", "answer"):
        for lang in LANGS:
            assert isinstance(cp[field].get(lang), str) and cp[field][lang].strip(), (cid, field, lang)
    assert re.search(r"[\u4e00-\u9fff]", cp["answer"]["zh"]), f"{cid}: zh answer has no Chinese"
    rubric = cp.get("rubric")
    assert rubric, f"{cid}: empty rubric"
    for item in rubric:
        for lang in LANGS:
            assert item["point"].get(lang, "").strip(), (cid, item)
        assert item.get("match"), f"{cid}: a rubric point without concept matchers: {item['point']['en']}"


@pytest.mark.parametrize("cid", sorted(CHECKPOINTS))
def test_model_answer_passes_its_own_scoring(cid):
    """The model answer, in each language, shows every key point and makes none of the checkpoint's wrong claims
    (it may name a guide error only to say it is wrong)."""
    from coach.oral import scoring

    for lang in LANGS:
        s = scoring.score(cid, CHECKPOINTS[cid]["answer"][lang], lang)
        assert not s.wrong_claims, (cid, lang, s.wrong_claims)
        missing = [p["point"] for p in s.points if not p["found"]]
        assert not missing, (cid, lang, missing)
        assert s.passed


SPEAKING_WORDS = 190  # about a minute aloud


@pytest.mark.parametrize("cid", sorted(CHECKPOINTS))
def test_model_answer_fits_in_about_a_minute(cid):
    """English: at most SPEAKING_WORDS words. Chinese: CJK characters plus ASCII words, at most 2.6x that (Chinese is
    spoken at about 250-300 characters a minute)."""
    cp = CHECKPOINTS[cid]
    assert len(cp["answer"]["en"].split()) <= SPEAKING_WORDS, cid
    zh = cp["answer"]["zh"]
    units = len(re.findall(r"[\u4e00-\u9fff]", zh)) + len(re.findall(r"[A-Za-z0-9_.()=*+/<>'-]+", zh))
    assert units <= int(2.6 * SPEAKING_WORDS), (cid, units)


@pytest.mark.parametrize("cid", sorted(CHECKPOINTS))
def test_chinese_text_has_no_stray_spaces_between_characters(cid):
    """A YAML line break between two Chinese characters folds into a space; the text must not have one."""
    cjk = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
    for field in ("question", "answer"):
        assert not re.search(f"[{cjk}] [{cjk}]", CHECKPOINTS[cid][field]["zh"]), (cid, field)


@pytest.mark.parametrize("name", sorted(DRILLS))
def test_drill_chinese_texts_have_no_stray_spaces(name):
    """The same folding check for each drill's zh title, task and hints."""
    cjk = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
    d = DRILLS[name]
    texts_zh = [d.get("title", {}).get("zh", ""), d.get("task", {}).get("zh", "")]
    texts_zh += [h.get("zh", "") for h in d.get("hints", [])]
    for text in texts_zh:
        assert not re.search(f"[{cjk}] [{cjk}]", text), (name, text)


# --------------------------------------------------------------------------------------------------------------------
# (2) drills link to existing checkpoints


def test_every_drill_checkpoint_id_exists():
    for name, d in DRILLS.items():
        for cid in d.get("checkpoints", []):
            assert cid in CHECKPOINTS, f"drill {name} links unknown checkpoint {cid}"


def test_every_spec_drill_has_checkpoints():
    """Every drill in drills/specs.py links at least one checkpoint, and every id it links exists (checkpoints_for
    drops unknown ids silently, so the raw list is checked too)."""
    import drills
    for name in drills.names():
        ids = texts.drill_texts(name).get("checkpoints", [])
        assert ids, f"drill {name} has no checkpoint ids in prompts.yaml"
        unknown = [cid for cid in ids if cid not in CHECKPOINTS]
        assert not unknown, f"drill {name} links unknown checkpoints {unknown}"
        assert len(texts.checkpoints_for(name)) == len(ids)


# --------------------------------------------------------------------------------------------------------------------
# (3) quoted API names resolve in the installed versions


def test_resolve_tells_real_from_missing_names():
    assert resolves("torch._inductor.config.triton.max_tiles")
    assert resolves("triton.language.program_id")
    assert not resolves("torch._inductor.config.triton.no_such_option")
    assert not resolves("triton.language.no_such_function")
    assert not resolves("no_such_package.x")


@pytest.mark.parametrize("cid", sorted(CHECKPOINTS))
def test_apis_resolve(cid):
    apis = CHECKPOINTS[cid].get("apis", [])
    missing = [n for n in apis if not resolves(n)]
    assert not missing, f"{cid}: not found in the installed torch/triton: {missing}"


@pytest.mark.parametrize("cid", sorted(CHECKPOINTS))
def test_apis_list_matches_the_answer(cid):
    """Every dotted torch/triton name the texts quote is in `apis`, and every `apis` entry is named in the texts."""
    cp = CHECKPOINTS[cid]
    apis = set(cp.get("apis", []))
    quoted = {n for n in quoted_names(all_text(cp)) if not any(n == d or n.startswith(d + ".") for d in DENIED_NAMES)}
    assert quoted <= apis, f"{cid}: quoted but not listed in apis: {sorted(quoted - apis)}"
    text = all_text(cp)
    unnamed = [n for n in apis if n.rsplit(".", 1)[-1] not in text]
    assert not unnamed, f"{cid}: apis not mentioned in the question or answer: {unnamed}"


# --------------------------------------------------------------------------------------------------------------------
# (4) the guide's errors are not repeated


@pytest.mark.parametrize("name", DENIED_NAMES)
def test_denylisted_names_really_do_not_exist(name):
    assert not resolves(name), f"{name} exists in the installed versions: take it off the denylist"


@pytest.mark.parametrize("cid", sorted(CHECKPOINTS))
def test_answers_do_not_repeat_guide_errors(cid):
    cp = CHECKPOINTS[cid]
    for field in ("question", "answer"):
        for lang in LANGS:
            assert not denylist_violations(cp[field][lang]), (cid, field, lang, denylist_violations(cp[field][lang]))


@pytest.mark.parametrize("text", [
    "To see the code, set torch._inductor.config.trace.log_output_code = True.",
    "Enable autotuning with torch._inductor.config.triton.autotune = True.",
    "Call tl.libdevice.tanh(x) for tanh.",
    "triton.Config.enable_debug = True turns on debugging.",
    "print(torch._inductor.utils.get_last_generated_code())",
    "Pick num_warps ≥ XBLOCK/32 so that each thread handles one element.",
    "每个thread处理1个元素。",
    "Inductor's grid is limited to 48 programs.",
    "grid 限制为 48。",
    "torch._inductor.config.triton.max_tiles sets the tiles per SM.",
    "Override TritonScheduling.get_grid to cap the grid.",
    "The guide uses tl.libdevice.tanh here.",             # mentions the guide, but never says it is wrong
    "tl.libdevice does not exist. The guide says so.",    # negation and guide in different sentences
])
def test_denylist_check_catches_wrong_text(text):
    assert denylist_violations(text)


@pytest.mark.parametrize("text", [
    "The guide writes tl.libdevice.tanh, but tl.libdevice does not exist in triton 3.9.",
    "指南里写的 torch._inductor.config.triton.autotune 在 torch 2.13 里不存在。",
    "Use torch._inductor.config.triton.autotune_pointwise and triton.language.extra.libdevice.",
    "The guide's rule num_warps ≥ XBLOCK/32 is wrong.",
])
def test_denylist_check_allows_debunking_and_real_names(text):
    assert not denylist_violations(text)


# --------------------------------------------------------------------------------------------------------------------
# The command: drill checkpoints [DRILL] [--lang]


@pytest.fixture
def run_cli(monkeypatch):
    import cli

    def run(*args, env=None):
        for var in ("DRILL_LANG", "LANG", "LC_ALL"):
            monkeypatch.delenv(var, raising=False)
        for k, v in (env or {}).items():
            monkeypatch.setenv(k, v)
        return CliRunner().invoke(cli.main, list(args))
    return run


def test_cli_lists_all_checkpoints(run_cli):
    r = run_cli("checkpoints")
    assert r.exit_code == 0, r.output
    for cid in CHECKPOINTS:
        assert cid in r.output
    assert "Model answer" in r.output and "Key points" in r.output


def test_cli_one_drill_in_chinese(run_cli):
    r = run_cli("checkpoints", "mask", "--lang", "zh")
    assert r.exit_code == 0, r.output
    ids = DRILLS["mask"]["checkpoints"]
    for cid in ids:
        assert cid in r.output
    assert "grid-cdiv" not in r.output                      # not a mask checkpoint
    assert "参考答案" in r.output and "要点" in r.output
    assert "为什么必须有 mask" in r.output                  # the zh question of why-mask
    assert "Model answer" not in r.output


def test_cli_language_from_environment(run_cli):
    assert "参考答案" in run_cli("checkpoints", "grid", env={"DRILL_LANG": "zh"}).output
    assert "参考答案" in run_cli("checkpoints", "grid", env={"LANG": "zh_CN.UTF-8"}).output
    r = run_cli("checkpoints", "grid", env={"DRILL_LANG": "en", "LANG": "zh_CN.UTF-8"})
    assert "Model answer" in r.output and "参考答案" not in r.output
    r = run_cli("checkpoints", "grid", "--lang", "en", env={"DRILL_LANG": "zh"})
    assert "Model answer" in r.output


def test_cli_unknown_drill_is_a_usage_error(run_cli):
    r = run_cli("checkpoints", "no-such-drill")
    assert r.exit_code == 2
    assert "no-such-drill" in r.output and "Traceback" not in r.output


def test_cli_rejects_unknown_language(run_cli):
    assert run_cli("checkpoints", "--lang", "fr").exit_code == 2
