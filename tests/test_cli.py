"""The CLI as a person uses it: click's CliRunner in a temporary working directory."""
import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import cli
import drills

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(cli.main, list(args), catch_exceptions=False)
    return invoke


def test_list_shows_every_drill_and_progress(run):
    r = run("list")
    assert r.exit_code == 0
    for name in drills.names():
        assert name in r.output


def test_start_writes_the_skeleton_and_refuses_to_overwrite(run, tmp_path):
    r = run("start", "mask")
    assert r.exit_code == 0, r.output
    target = tmp_path / "mask.py"
    assert target.read_text() == drills.get_spec("mask").skeleton_path.read_text()
    target.write_text("# drill: mask\n# my work\n")
    r = run("start", "mask")
    assert r.exit_code == 2
    assert "not overwriting" in r.output
    assert target.read_text() == "# drill: mask\n# my work\n"  # nothing lost


def test_start_force_keeps_a_backup(run, tmp_path):
    (tmp_path / "m.py").write_text("mine v1")
    assert run("start", "mask", "m.py", "--force").exit_code == 0
    assert (tmp_path / "m.py.bak").read_text() == "mine v1"
    (tmp_path / "m.py").write_text("mine v2")
    assert run("start", "mask", "m.py", "--force").exit_code == 0
    assert (tmp_path / "m.py.bak.1").read_text() == "mine v2"
    assert (tmp_path / "m.py.bak").read_text() == "mine v1"


def test_start_unknown_drill_is_a_usage_error(run):
    r = run("start", "nope")
    assert r.exit_code == 2 and "unknown drill" in r.output


def test_grade_skeleton_fails_with_hole_and_json(run, tmp_path):
    run("start", "grid")
    r = run("grade", "grid.py", "--json")
    assert r.exit_code == 1
    data = json.loads(r.output)
    assert data["diagnosis"] == "hole" and data["hole"] == "grid" and data["passed"] is False
    for key in ("drill", "file", "device", "passed", "diagnosis", "checks"):
        assert key in data
    assert all({"name", "passed", "detail"} <= set(c) for c in data["checks"])


@pytest.mark.slow
def test_grade_solution_passes_and_prints_checkpoints(run, tmp_path):
    shutil.copy(ROOT / "solutions" / "vector_add.py", tmp_path / "mine.py")
    r = run("grade", "mine.py", "--device", "cpu")
    assert r.exit_code == 0, r.output
    assert "PASS" in r.output
    assert "interpreter" in r.output  # says plainly that no GPU timing happened
    assert "cdiv" in r.output  # the grid checkpoint question
    assert "\x1b[" not in r.output  # NO_COLOR


@pytest.mark.slow
def test_grade_json_on_a_wrong_kernel(run):
    path = ROOT / "tests" / "submissions" / "wrong" / "no_mask.py"
    r = run("grade", str(path), "--json", "--device", "cpu")
    assert r.exit_code == 1
    data = json.loads(r.output)
    assert data["diagnosis"] == "mask" and data["hole"] == "mask"
    assert data["line"] == 12
    assert data["focus"]["tiles"]["status"].endswith("!")


def test_grade_usage_errors_exit_2(run, tmp_path):
    assert run("grade", "missing.py").exit_code == 2
    (tmp_path / "plain.py").write_text("def add(x, y):\n    return x\n")
    r = run("grade", "plain.py")
    assert r.exit_code == 2 and "--drill" in r.output
    assert run("grade", "plain.py", "--drill", "nope").exit_code == 2


def test_grade_syntax_error_names_the_line(run, tmp_path):
    (tmp_path / "s.py").write_text("# drill: mask\ndef add(x, y)\n    return x\n")
    r = run("grade", "s.py")
    assert r.exit_code == 1
    assert "error" in r.output and "2" in r.output
    assert "Traceback" not in r.output


def test_hint_one_at_a_time(run):
    hints = [run("hint", "mask").output for _ in range(4)]
    assert "hint 1/3" in hints[0] and "hint 2/3" in hints[1] and "hint 3/3" in hints[2]
    assert "hint 3/3" in hints[3]  # stays on the last one
    assert "hint 1/3" in run("hint", "mask", "--reset").output


def test_hint_in_chinese(run, monkeypatch):
    monkeypatch.setenv("DRILL_LANG", "zh")
    assert "负责" in run("hint", "offsets").output


def test_solution_prints_the_reference(run):
    r = run("solution", "mask")
    assert r.exit_code == 0 and "tl.store" in r.output and "HOLE" not in r.output


def test_help_lists_the_commands(run):
    r = run("--help")
    for cmd in ("list", "start", "grade", "hint", "solution"):
        assert cmd in r.output


def test_drill_names_complete_in_the_shell():
    assert cli.complete_drill(None, None, "ma") == ["mask", "matmul", "matmul-epilogue"]
    assert cli.complete_drill(None, None, "matmul-") == ["matmul-epilogue"]
    assert set(cli.complete_drill(None, None, "")) == set(drills.names())
    assert cli.complete_drill(None, None, "zz") == []


@pytest.mark.parametrize("name", drills.names())
def test_solution_redirected_to_a_file_is_the_file_byte_for_byte(run, name):
    """Byte for byte, except the `# drill:` line: it names the drill asked for (a family shares one file)."""
    r = run("solution", name)  # CliRunner's stdout is not a terminal, as with `> f.py`
    assert r.exit_code == 0
    original = drills.get_spec(name).solution_path.read_text(encoding="utf-8").splitlines(keepends=True)
    printed = r.output.splitlines(keepends=True)
    assert printed[0] == f"# drill: {name}\n"
    assert printed[1:] == [ln for ln in original if not ln.startswith("# drill:")]


GRADE_VA = ("grade", str(ROOT / "solutions" / "vector_add.py"), "--device", "cpu")


@pytest.mark.parametrize("command", [("list",), ("progress",), ("hint", "mask"), GRADE_VA])
def test_binary_garbage_state_is_quarantined_not_a_traceback(run, drill_home, command):
    drill_home.mkdir(parents=True, exist_ok=True)
    (drill_home / "state.json").write_bytes(bytes(range(256)) * 4)
    r = run(*command)
    assert r.exit_code == 0
    assert "corrupt" in r.output and "Traceback" not in r.output


@pytest.mark.parametrize("command", [("list",), ("progress",), ("hint", "mask"), GRADE_VA])
def test_unwritable_home_is_one_line_not_a_traceback(run, tmp_path, monkeypatch, command):
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("DRILL_HOME", str(tmp_path / "a-file" / "drill"))
    r = run(*command)
    assert r.exit_code == 0
    assert "not saved" in r.output and "Traceback" not in r.output


def test_bench_takes_shapes_for_shaped_drills(run, monkeypatch):
    """matmul is benched over shapes (exit 2 here only because there is no GPU); a 1-D size for it is a usage error
    that shows the shapes it takes."""
    from grader.run import proc
    monkeypatch.setattr(proc, "cuda_available", lambda: False)
    r = run("bench", str(ROOT / "solutions" / "matmul.py"), "--sizes", "1024x1024x1024")
    assert r.exit_code == 2 and "GPU" in r.output and "1-D" not in r.output
    r = run("bench", str(ROOT / "solutions" / "matmul.py"), "--sizes", "4096")
    assert r.exit_code == 2 and "matmul takes shapes like 512x512x512,1024x1024x1024" in r.output


def test_a_bug_in_drill_outside_a_grade_is_an_internal_error_not_a_traceback(monkeypatch, capsys):
    """An exception from drill's own code in any command is said as drill's internal error (en / zh), exit 2; with
    DRILL_DEBUG=1 the traceback comes back for whoever fixes it."""
    import cli as cli_module

    def broken(lang):
        raise RuntimeError("state table has no column 'tries'")

    monkeypatch.setattr(cli_module.actions, "list_drills", broken)
    monkeypatch.delenv("DRILL_DEBUG", raising=False)
    for argv, words in ((["drill", "list"], "internal error, not your mistake"),
                        (["drill", "list", "--lang", "zh"], "drill 内部错误")):
        monkeypatch.setattr(sys, "argv", argv)
        with pytest.raises(SystemExit) as exit_:
            cli_module.run()
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and words in err and "RuntimeError" in err and "Traceback" not in err
    monkeypatch.setenv("DRILL_DEBUG", "1")
    monkeypatch.setattr(sys, "argv", ["drill", "list"])
    with pytest.raises(RuntimeError):
        cli_module.run()
