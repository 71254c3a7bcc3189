"""Issue 20, as a new user meets each defect: a state file of the wrong shape, a read-only home, paths that cannot
be written, a timeout report, debug prints, the fix given away, the quiz and checkpoint errors, the solution's
header, names typed with underscores, what is due, the mock's empty session and clock, the wording."""
import json
import os
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

import cli
from coach import store as store_mod
from coach.mock import interview as M
from coach.mock import tui
from coach.store import Store

ROOT = Path(__file__).resolve().parent.parent
WRONG = ROOT / "tests" / "submissions" / "wrong"
SOLUTION = ROOT / "solutions" / "vector_add.py"


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def invoke(*args, input=None):
        return CliRunner().invoke(cli.main, list(args), catch_exceptions=False, input=input)
    return invoke


def no_traceback(r):
    assert "Traceback" not in r.output and "Error:" not in r.output.replace("error:", ""), r.output


def stdout_json(r):
    return json.loads(r.stdout)


# ---------------------------------------------------------------- state that survives anything

BAD_SHAPES = ['{"drills": {"mask": 5}}', '{"drills": {"mask": {"attempts": "x"}}}', '{"mocks": [1, "x"]}',
              '{"drills": {"mask": {"attempts": 1, "review": {"box": "a"}}}}',
              '{"checkpoints": {"why-mask": []}}', '{"mocks": [{"code": [{"drill": 3}]}]}']


@pytest.mark.parametrize("text", BAD_SHAPES)
@pytest.mark.parametrize("command", [("list",), ("progress",), ("hint", "mask"), ("next",)])
def test_state_of_the_wrong_shape_is_a_notice_not_a_crash(run, drill_home, text, command):
    drill_home.mkdir(parents=True, exist_ok=True)
    good = {"grid": {"attempts": 2, "passes": 1, "last": {"at": 1.0, "passed": True}}}
    data = json.loads(text)
    data.setdefault("drills", {}).update(good)
    (drill_home / "state.json").write_text(json.dumps(data))
    r = run(*command)
    assert r.exit_code == 0, r.output
    no_traceback(r)
    assert "malformed" in r.output
    if command == ("list",):
        row = next(ln for ln in r.output.splitlines() if " grid " in ln)
        assert re.search(r"\b2\b.*\b1\b", row), row  # the good entry is read
    if command[0] == "hint":  # a write: the file as it was is kept aside first
        kept = list(drill_home.glob("state.bad-entries-*.json"))
        assert len(kept) == 1 and json.loads(kept[0].read_text()) == data


def test_grade_with_a_malformed_state_shows_and_records_the_verdict(run, drill_home):
    drill_home.mkdir(parents=True, exist_ok=True)
    (drill_home / "state.json").write_text('{"drills": {"vector-add": {"attempts": "x"}}, "mocks": [1]}')
    r = run("grade", str(SOLUTION), "--device", "cpu")
    assert r.exit_code == 0 and "PASS" in r.output, r.output
    no_traceback(r)
    assert Store(drill_home).read()["drills"]["vector-add"]["passes"] == 1


def test_a_read_only_home_is_read(run, drill_home, monkeypatch):
    """Root ignores file modes, so the read-only file system is what the lock's open meets: EROFS."""
    s = Store(drill_home)
    with s.update() as st:
        st["drills"]["grid"] = {"attempts": 3, "passes": 2}

    def read_only(self):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(Store, "_locked", read_only)
    r = run("list")
    assert r.exit_code == 0
    row = next(ln for ln in r.output.splitlines() if " grid " in ln)
    assert re.search(r"\b3\b.*\b2\b", row), r.output
    assert "cannot" not in r.output
    r = run("hint", "grid")  # a write: said once, and the hint still shown
    assert r.exit_code == 0 and "hint 1/" in r.output and "not saved" in r.output


def test_the_verdict_is_printed_even_when_recording_it_fails(run, monkeypatch):
    from coach import actions

    def boom(*a, **kw):
        raise TypeError("a state of another shape")

    monkeypatch.setattr(actions, "record_grade", boom)
    r = run("grade", str(SOLUTION), "--device", "cpu")
    assert r.exit_code == 0 and "PASS" in r.output and "could not save progress" in r.output
    assert r.output.index("PASS") < r.output.index("could not save progress")


# ---------------------------------------------------------------- start: paths

def test_start_into_an_unwritable_place_is_one_line(run):
    r = run("start", "mask", "/proc/x.py")
    assert r.exit_code == 2 and "cannot write /proc/x.py" in r.output
    no_traceback(r)
    assert len(r.output.strip().splitlines()) == 1


def test_start_never_creates_a_folder(run, tmp_path):
    r = run("start", "mask", str(tmp_path / "nonexistent" / "dir" / "x.py"))
    assert r.exit_code == 2 and "does not exist" in r.output and "mkdir -p" in r.output
    assert not (tmp_path / "nonexistent").exists()
    r = run("start", "mask", "sub/x.py", "--lang", "zh")
    assert r.exit_code == 2 and "不存在" in r.output


def test_start_in_a_subfolder_says_the_path_to_grade(run, tmp_path):
    (tmp_path / "sub").mkdir()
    r = run("start", "fuse", "sub/f.py")
    assert r.exit_code == 0 and "drill grade sub/f.py" in r.output
    assert re.search(r"\(\d+ to fill\)", r.output)


@pytest.mark.parametrize("umask,mode", [(0o022, 0o644), (0o002, 0o664)])
def test_skeletons_follow_the_umask(run, tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        assert run("start", "mask").exit_code == 0
    finally:
        os.umask(old)
    assert (tmp_path / "mask.py").stat().st_mode & 0o777 == mode


# ---------------------------------------------------------------- names, next, list, solution

@pytest.mark.parametrize("typed", ["vector_add", "Vector-Add", "MASK", "row_sum", "vector_add.py"])
def test_names_with_underscores_and_case_are_the_drill(run, typed):
    r = run("hint", typed)
    assert r.exit_code == 0 and "hint 1/" in r.output, r.output


def test_a_typo_gets_did_you_mean_in_both_languages(run):
    r = run("start", "msk")
    assert r.exit_code == 2 and "did you mean `mask`" in r.output
    r = run("hint", "vectoradd", "--lang", "zh")
    assert r.exit_code == 2 and "你是不是想输入 `vector-add`" in r.output
    r = run("start", "zzzz")
    assert r.exit_code == 2 and "did you mean" not in r.output and "`drill list`" in r.output


def test_next_follows_the_path_and_list_shows_it(run, drill_home):
    from coach import path

    r = run("next")
    assert r.exit_code == 0 and "next: offsets" in r.output and "drill start offsets" in r.output
    with Store(drill_home).update() as st:
        st["drills"]["offsets"] = {"attempts": 1, "passes": 1}
    assert "next: mask" in run("next").output
    order = path.order()
    assert sorted(order) == sorted(__import__("drills").names())
    assert order.index("heuristics") < order.index("matmul") < order.index("attention")
    listed = [ln.split()[1] for ln in run("list").output.splitlines() if ln.split() and ln.split()[0].isdigit()]
    assert listed == order


def test_solution_names_the_drill_asked_and_grades_under_it(run, drill_home, tmp_path):
    r = run("solution", "mask", "--lang", "zh")
    assert r.exit_code == 0 and r.output.startswith("# drill: mask\n")
    (tmp_path / "m.py").write_text(r.output)
    g = run("grade", "m.py", "--device", "cpu")
    assert g.exit_code == 0, g.output
    state = Store(drill_home).read()["drills"]
    assert state["mask"]["passes"] == 1 and "vector-add" not in state


# ---------------------------------------------------------------- errors: one line, one JSON object

def test_every_json_error_is_the_same_object(run, tmp_path):
    (tmp_path / "f.py").write_text("# drill: fuse\nx = HOLE('fuse')\n")
    cases = [("grade", "nope.py", "--json"), ("bench", "f.py", "--json"), ("bench", "nope.py", "--json"),
             ("checkpoints", "nope", "--answer", "x", "--json"), ("checkpoints", "nope", "--json"),
             ("grade", "f.py", "--json", "--bogus")]
    for args in cases:
        r = run(*args)
        assert r.exit_code == 2, (args, r.output)
        obj = stdout_json(r)
        assert set(obj) == {"error", "passed", "exit_code"} and obj["exit_code"] == 2, (args, obj)
        assert obj["error"] and "None" not in obj["error"]


def test_checkpoint_answer_errors_name_the_fix(run):
    r = run("checkpoints", "--answer", "x")
    assert r.exit_code == 2 and "None" not in r.output and "give its id" in r.output
    r = run("checkpoints", "mask", "--answer", "x")
    assert r.exit_code == 2 and "why-mask" in r.output  # the drill's own ids, to copy
    r = run("checkpoints", "why-msk", "--answer", "x", "--lang", "zh")
    assert r.exit_code == 2 and "why-mask" in r.output and "检查点" in r.output


def test_typed_answers_are_recorded_like_spoken_ones(run, drill_home):
    r = run("checkpoints", "why-mask", "--answer", "the last tile runs past n, so mask = offsets < n on every load "
            "and store; masked lanes are not read or written")
    assert r.exit_code in (0, 1)
    c = Store(drill_home).read()["checkpoints"]["why-mask"]
    assert c["asked"] == 1 and c["typed"] == 1 and c["review"]["reviews"] == 1
    assert c["last"]["how"] == "typed" and c["passes"] == (1 if r.exit_code == 0 else 0)
    p = run("progress")
    assert "why-mask" in p.output and ("checkpoint:why-mask" in p.output) == (r.exit_code == 1)


def test_click_usage_errors_are_one_line(run):
    r = CliRunner().invoke(cli.main, ["grade", "--bogus"])
    assert r.exit_code == 2
    lines = [ln for ln in r.output.strip().splitlines() if ln]
    assert len(lines) == 1 and "--bogus" in lines[0] and "--help" in lines[0]


def test_help_in_chinese(run, monkeypatch):
    r = CliRunner().invoke(cli.main, ["grade", "--help", "--lang", "zh"])
    assert r.exit_code == 0
    monkeypatch.setattr(sys, "argv", ["drill", "grade", "--help", "--lang", "zh"])
    r = CliRunner().invoke(cli.main, ["grade", "--help", "--lang", "zh"])
    assert "对照 eager PyTorch 评测 FILE" in r.output and "选项" in r.output
    monkeypatch.setattr(sys, "argv", ["drill", "--help"])
    r = CliRunner().invoke(cli.main, ["--help"])
    assert "Practise Triton" in r.output and "drill next" in r.output


# ---------------------------------------------------------------- review due

def test_a_fresh_learner_has_nothing_due(run):
    r = run("progress")
    assert r.exit_code == 0 and "Nothing is due for review now." in r.output and "drill next" in r.output


# ---------------------------------------------------------------- grade: output, disclosure, gcc

def test_learner_prints_are_shown_on_a_fail_without_drill_frames(run, tmp_path):
    src = (WRONG / "mask_le.py").read_text().replace("    pid = tl.program_id(0)\n",
                                                      "    pid = tl.program_id(0)\n", 1)
    src = src.replace("def add(", "def add(", 1)
    lines = src.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith("def add("))
    lines.insert(i + 1, '    print("debug: n =", x.numel())')
    (tmp_path / "m.py").write_text("\n".join(lines) + "\n")
    r = run("grade", "m.py", "--device", "cpu")
    assert r.exit_code == 1 and "your program printed" in r.output, r.output
    assert "debug: n =" in r.output
    assert "grader/run" not in r.output and "UserWarning" not in r.output


@pytest.mark.slow
def test_timeout_report_says_the_limit_and_no_drill_frame(run, tmp_path):
    src = (WRONG / "hang.py").read_text()
    lines = src.splitlines()
    lines.insert(2, "import sys")  # after the `# drill:` and `# expect:` lines
    j = next(k for k, ln in enumerate(lines) if ln.startswith("def add("))
    lines.insert(j + 1, '    print("entered add", file=sys.stderr)')
    (tmp_path / "h.py").write_text("\n".join(lines) + "\n")
    r = run("grade", "h.py", "--device", "cpu", "--timeout", "3")  # a fork of the session's warm worker
    assert r.exit_code == 1 and "timeout" in r.output
    assert "killed after 3" in r.output and "killed after 4" not in r.output, r.output
    assert "entered add" in r.output
    assert "child.py" not in r.output and "<frozen" not in r.output


def test_the_first_failure_holds_the_fix_code_back(run, tmp_path):
    src = SOLUTION.read_text().replace("# drill: vector-add", "# drill: mask")
    src = re.sub(r", mask=mask\)", ")", src)  # no mask on the loads and the store
    (tmp_path / "m.py").write_text(src)
    def fix(r):
        return " ".join(r.output.split("Fix:")[1].split("sizes:")[0].split())

    first = run("grade", "m.py", "--device", "cpu")
    assert first.exit_code == 1 and "FAIL   mask" in first.output and "line" in first.output
    assert "offsets < n_elements" not in fix(first) and "drill hint mask" in fix(first)
    second = run("grade", "m.py", "--device", "cpu")
    assert "offsets < n_elements" in fix(second)  # the same hole failed again: now the code
    shown = run("grade", "m.py", "--device", "cpu", "--show-fix", "--lang", "zh")
    assert "offsets < n_elements" in shown.output.split("怎么改")[1]


def test_gcc_format_is_what_quickfix_reads(run, tmp_path):
    assert run("start", "mask").exit_code == 0
    r = run("grade", "mask.py", "--format", "gcc")
    assert r.exit_code == 1
    lines = r.output.strip().splitlines()
    pat = re.compile(r"^(?P<file>/[^:]+):(?P<line>\d+):(?P<col>\d+): error: .+ \[hole\]$")
    start = run("start", "mask", "again.py").output
    holes = int(re.search(r"\((\d+) to fill\)", start).group(1))
    assert holes == 4 and len(lines) == holes and all(pat.match(ln) for ln in lines)
    first = pat.match(lines[0])
    text = (tmp_path / "mask.py").read_text().splitlines()[int(first["line"]) - 1]
    assert text[int(first["col"]) - 1:].startswith("HOLE(")
    assert run("grade", str(SOLUTION), "--format", "gcc", "--device", "cpu").output.strip() == ""


# ---------------------------------------------------------------- wording

def test_wording_counts_and_lines():
    from grader.reporting import report

    assert report.singular("tl.load touched 1 lanes past the end") == "tl.load touched 1 lane past the end"
    assert report.singular("touched 11 lanes, 1.1 rows, 21 tiles") == "touched 11 lanes, 1.1 rows, 21 tiles"
    assert not report.gives_code("Look for a loop whose bound never moves: a `while` in the kernel")
    assert report.gives_code("mask = offsets < n_elements, and pass mask= to every tl.load")


def test_hole_report_says_also_line(run):
    run("start", "offsets")
    r = run("grade", "offsets.py")
    holes = (Path.cwd() / "offsets.py").read_text().count("HOLE(")
    if holes == 2:
        assert re.search(r"\(also line \d+\)", r.output), r.output
    assert "(lines " not in r.output


def test_missing_entry_does_not_list_hole(run, tmp_path):
    (tmp_path / "f.py").write_text("# drill: fuse\nimport torch\nfrom drills import HOLE\n\n"
                                   "def add_relu(x, y):\n    return torch.relu(x + y)\n")
    r = run("grade", "f.py", "--device", "cpu")
    assert r.exit_code == 1
    if "found:" in r.output:
        assert "HOLE" not in r.output.split("found:")[1].split(")")[0]


def test_a_long_source_line_wraps_under_its_gutter():
    from grader.reporting import report

    lines = ["x = 1", "y = " + " + ".join(f"term_{i}" for i in range(30)), "z = 3"]
    con = Console(width=60, no_color=True, record=True)
    con.print(report.source_excerpt(lines, 2))
    out = con.export_text().splitlines()
    assert any("➜" in ln for ln in out)
    gutter = out[0].index("│")
    assert all(ln[:gutter].strip() == "" or "│" in ln for ln in out)
    assert all(not ln.startswith("term") and (len(ln) <= gutter or ln[:gutter].strip() == "" or "│" in ln)
               for ln in out)


# ---------------------------------------------------------------- the mock

@pytest.fixture
def mock_at_eof(monkeypatch):
    """`drill mock < /dev/null`, run in this process by click's runner (the mock's behaviour is under test, not
    process isolation: tests/test_worker.py and tests/test_mock_pty.py run it as its own process). The mock reads
    its own descriptor (tui.StdinInput: select and os.read); click's runner has none, so it gets /dev/null's. Its
    grades would fork from the session's warm worker (`worker.warm` nests)."""
    fd = os.open(os.devnull, os.O_RDONLY)
    real = tui.StdinInput
    monkeypatch.setattr(tui, "StdinInput", lambda _fd=None: real(fd))

    def invoke(*args):
        return CliRunner().invoke(cli.main, ["mock", *args], env={"DRILL_LANG": "en"}, catch_exceptions=False)
    yield invoke
    os.close(fd)


def test_an_empty_session_is_not_an_interview(drill_home, tmp_path, mock_at_eof):
    r = mock_at_eof("--minutes", "1", "--dir", str(tmp_path / "m"))
    assert r.exit_code == 1 and "not saved" in r.stdout, r.output
    assert Store(drill_home).read()["mocks"] == []
    assert "Traceback" not in r.stderr


def test_a_tensor_core_drill_says_its_clock(drill_home, tmp_path, mock_at_eof, monkeypatch):
    monkeypatch.setattr(M, "pick_drills", lambda *a, **k: ["attention"])
    r = mock_at_eof("--dir", str(tmp_path / "m"))
    assert "40 min of coding" in r.stdout and "attention is a longer drill" in r.stdout, r.output
    short = tui.clock_note(["attention"], 3.0, 3.0, "en")
    assert "usually takes 40 min" in short and "3 min" in short
    assert tui.clock_note(["mask"], None, 10.0, "en") is None and tui.clock_note(["mask"], 3.0, 3.0, "zh") is None
    assert "40 分钟" in tui.clock_note(["attention", "mask"], None, 40.0, "zh")


class FakeTTY:
    def __init__(self):
        self.text = ""

    def isatty(self):
        return True

    def write(self, s):
        self.text += s

    def flush(self):
        pass


def test_a_time_warning_while_typing_goes_on_its_own_line(monkeypatch):
    out = FakeTTY()
    ui = tui.TerminalUI("en", out=out)
    said = []
    monkeypatch.setattr(ui, "say", lambda text="", style=None: said.append((out.text, text)))
    mock = type("Mk", (), {"phase": M.ASK, "t0": None})()
    ui("time-warning", {"which": "q0", "left": 30}, mock)
    before, text = said[-1]
    assert before.endswith("\n") and "30 s left" in text and "keep typing" in text


def test_scorecard_ids_are_never_cut_at_80_columns():
    card = {"code": [{"drill": "matmul-epilogue", "passed": False, "time_s": 60.0, "attempts": 2,
                      "diagnosis": "epilogue", "grade_s": 1.5}],
            "oral": [{"id": "inductor-launch-heuristics-xblock-warps", "kind": "checkpoint", "answered": True,
                      "covered": [0], "points": 3, "answer_s": 40.0, "rating": 3, "passed": False}]}
    con = Console(width=80, no_color=True, record=True)
    for t in tui.scorecard_tables(card, "en"):
        con.print(t)
    text = con.export_text()
    assert "inductor-launch-heuristics-xblock-warps" in text and "matmul-epilogue" in text


# ---------------------------------------------------------------- a pseudo-terminal: the status line

def test_a_grade_in_a_terminal_says_what_it_is_doing(drill_home, tmp_path):
    pexpect = pytest.importorskip("pexpect")
    env = dict(os.environ, DRILL_HOME=str(drill_home), NO_COLOR="1", TERM="xterm", DRILL_LANG="en",
               DRILL_NO_WORKER="1")
    child = pexpect.spawn(sys.executable, ["cli.py", "grade", str(SOLUTION), "--device", "cpu"], cwd=str(ROOT),
                          env=env, encoding="utf-8", timeout=60, dimensions=(40, 160))
    try:
        child.expect(r"grading vector_add\.py · (importing|starting|reading|calling)")
        child.expect(r"calling your function at size \d+")
        child.expect("PASS")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_chinese_wraps_evenly_and_never_starts_a_line_with_punctuation():
    from rich.cells import cell_len

    from coach.ui import say
    from grader.reporting.i18n import pick
    from grader.reporting.texts import drill_texts

    for name in ("fuse", "mask", "attention"):
        con = Console(width=60, no_color=True, record=True)
        say(con, pick(drill_texts(name).get("task"), "zh"))
        lines = con.export_text().rstrip("\n").splitlines()
        assert all(cell_len(ln) <= 59 for ln in lines), lines
        assert all(ln[:1] not in "，。；：、）" for ln in lines), lines
        from coach.ui import TOKENS
        for ln, nxt in zip(lines, lines[1:]):  # not ragged: a line ends only where the next piece would not fit
            first = TOKENS.findall(nxt)[0]
            assert cell_len(ln) + 1 + cell_len(first) > 59 - 2, (ln, nxt)


def test_check_rows_in_chinese():
    from grader.reporting.i18n import check_detail

    assert check_detail("36/36 calls", "zh") == "36/36 次调用"
    assert check_detail("30/36 calls failed, first at size 1 on cpu", "zh") == "36 次调用中 30 次失败，首次在尺寸 1（cpu）"
    assert check_detail("killed after 5 s on cpu", "zh") == "5 秒后被终止（cpu）"
    assert check_detail("36/36 calls", "en") == "36/36 calls"


def test_a_timeout_shorter_than_start_up_is_not_the_learners(run, drill_home, monkeypatch):
    """Under load a cold grade's imports can outlast a short --timeout: the report says the code never ran, exit 2,
    and no attempt is recorded."""
    from grader.run import worker

    monkeypatch.setattr(worker, "_current", None)  # a cold child: torch and Triton imported after the fork
    r = run("grade", str(WRONG / "hang.py"), "--device", "cpu", "--timeout", "0.3")
    assert r.exit_code == 2, r.output
    assert "your code had not run yet" in r.output and "longer --timeout" in r.output
    assert "vector-add" not in Store(drill_home).read()["drills"]


def test_a_malformed_quiz_section_is_skipped(drill_home):
    drill_home.mkdir(parents=True, exist_ok=True)
    (drill_home / "state.json").write_text(json.dumps({"quiz": {"inductor": {"fuse": {"attempts": "x"},
                                                                            "mask": {"attempts": 1, "best": 1,
                                                                                     "total": 4, "last": None}}}}))
    s = Store(drill_home)
    state = s.read()
    assert state["quiz"]["inductor"] == {"mask": {"attempts": 1, "best": 1, "total": 4, "last": None}}
    assert any("quiz.inductor.fuse" in w for w in s.warnings)
    assert store_mod.validate({"quiz": 5})[1] == ["quiz"]
