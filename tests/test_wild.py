"""Kernels written the way other people write them (tests/submissions/wild/): the message names the cause in the
learner's terms, shows Triton's own errors and never the grader's internals."""
from pathlib import Path

import pytest

from grader.reporting import report

WILD = Path(__file__).parent / "submissions" / "wild"


USED = ("autotune_conflicting_meta.py", "va_output_no_device.py", "transpose_returns_view.py", "va_2d_grid_for_1d.py",
        "va_returns_x.py", "rowsum_row_times_block.py", "va_atomic_unmasked.py", "rowsum_split_atomic.py")


def shipped_grades(tmp_path_factory):
    """Queued when the session starts (tests/conftest.py)."""
    return [(WILD / name, {"device": "cpu"}) for name in USED]


@pytest.fixture
def grade(verdict_of):
    """A wild submission's verdict (graded once per session: test_submissions checks the same files)."""
    return lambda name: verdict_of(WILD / name, device="cpu")


def explain(v, lang="en"):
    return report.explain(v, lang)


@pytest.mark.slow
def test_errors_are_tritons_own_not_the_graders(grade):
    v = grade("autotune_conflicting_meta.py")
    assert v.diagnosis == "error"
    what, _ = explain(v)
    assert "Conflicting meta-parameters: BLOCK_SIZE" in what
    assert "grader" not in what and "LaunchRecorder" not in what and "<locals>" not in what


@pytest.mark.slow
def test_an_output_without_device_is_named_with_its_line(grade):
    v = grade("va_output_no_device.py")
    assert v.diagnosis == "shape"
    what, fix = explain(v)
    line = next(i for i, ln in enumerate((WILD / "va_output_no_device.py").read_text().splitlines(), 1)
                if "= torch.empty(n" in ln)
    assert "without device=" in what and f"line {line}" in what and v.line == line
    assert "device=x.device" in fix


@pytest.mark.slow
def test_a_transposed_view_fails_on_layout_not_shape(grade):
    v = grade("transpose_returns_view.py")
    what, fix = explain(v)
    assert "contiguous" in what and "strides" in what
    zh, _ = explain(v, "zh")
    assert "布局" in zh


@pytest.mark.slow
def test_a_2d_grid_for_a_1d_problem_gives_the_counts(grade):
    v = grade("va_2d_grid_for_1d.py")
    assert v.diagnosis == "grid" and v.detail["wasted"] == "repeats"
    what, fix = explain(v)
    assert f"{v.detail['programs']} programs" in what and "1-D grid" in fix


@pytest.mark.slow
def test_returning_the_input_says_so(grade):
    v = grade("va_returns_x.py")
    what, _ = explain(v)
    assert "returned input `x`" in what


@pytest.mark.slow
def test_a_wrong_row_stride_gets_the_2d_fix_not_the_1d_mask_fix(grade):
    v = grade("rowsum_row_times_block.py")
    assert v.diagnosis == "indexing"
    _, fix = explain(v)
    assert "row * N" in fix and "offsets < n_elements" not in fix


@pytest.mark.slow
def test_atomics_are_checked_lane_by_lane_and_count_as_writes(grade):
    v = grade("va_atomic_unmasked.py")
    assert v.diagnosis == "mask"
    assert v.detail["violation"]["kind"] == "atomic_add"
    what, _ = explain(v)
    assert "tl.atomic_add" in what
    ok = grade("rowsum_split_atomic.py")
    assert ok.passed
    written = next(c for c in ok.checks if c["name"] == "every output element written")
    assert written["passed"]
