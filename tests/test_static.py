import pytest

from grader.intake.static import UnreadableFile, drill_of, find_holes, inspect_file
import ast


def test_drill_header():
    assert drill_of("# drill: vector-add\nimport torch\n") == "vector-add"
    assert drill_of("import torch\n") is None


def test_holes_are_found_with_names_and_lines():
    src = "def f():\n    a = HOLE('offsets')\n    b = HOLE('mask: inside?')\n"
    assert find_holes(ast.parse(src)) == [{"name": "offsets", "line": 2}, {"name": "mask", "line": 3}]


def test_syntax_error_is_reported_with_its_line(tmp_path):
    p = tmp_path / "bad.py"
    p.write_text("def f(:\n  pass\n")
    r = inspect_file(p)
    assert r.syntax_error["line"] == 1


@pytest.mark.parametrize("make", ["missing", "directory", "binary"])
def test_unreadable_inputs(tmp_path, make):
    p = tmp_path / "x.py"
    if make == "directory":
        p.mkdir()
    elif make == "binary":
        p.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(UnreadableFile):
        inspect_file(p)
