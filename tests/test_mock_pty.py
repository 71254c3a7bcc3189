"""One real mock interview in a pseudo-terminal: start, live pass on save, submit, a question about the kernel
just graded, two checkpoint questions, scorecard."""
import os
import shutil
import subprocess
import sys
import time

import pexpect
import pytest

import drills
from grader.core.spec import ROOT
from grader.intake.static import drill_of


@pytest.mark.slow
def test_mock_interview_in_a_pty(tmp_path, drill_home):
    folder = tmp_path / "interview"
    env = dict(os.environ, DRILL_HOME=str(drill_home), NO_COLOR="1", TERM="xterm", DRILL_FORCE_CPU="1",
               DRILL_LANG="en")
    started = time.monotonic()
    child = pexpect.spawn(sys.executable, ["cli.py", "mock", "--minutes", "1", "--drills", "1", "--questions", "2",
                                           "--oral-seconds", "60", "--seed", "0", "--dir", str(folder),
                                           "--reviews", "0"],  # the code-review round: tests/test_bughunt_review.py
                          cwd=str(ROOT), env=env, encoding="utf-8", timeout=40, dimensions=(40, 160))
    try:
        child.expect("Enter = submit")  # the live countdown line
        files = list(folder.glob("*.py"))
        assert len(files) == 1
        name = drill_of(files[0].read_text())
        shutil.copy(drills.get_spec(name).solution_path, files[0])  # "save" the reference solution
        child.expect(r"PASS \(attempt 1")
        child.sendline("")  # submit
        child.expect("Code submitted")
        child.expect("About your own kernel")        # built from the grade of the file just saved
        child.expect(r"Question 1/3 \(1 min\): Your \S+ kernel passed\.")
        child.sendline("")  # said aloud
        child.expect("Working:")
        child.expect("Rate yourself 1-5")
        child.sendline("3")
        child.expect(r"Question 2/3 \(1 min\): ")
        child.sendline("each program owns one tile of BLOCK_SIZE elements, and we round up with cdiv")
        child.expect("Model answer:")
        child.expect("Rate yourself 1-5")
        child.sendline("4")
        child.expect(r"Question 3/3")
        child.sendline("")  # said aloud
        child.expect(r"Key points \(check them against what you said\)")
        child.sendline("3")
        child.expect("Scorecard")
        child.expect(r"PASS\s")
        child.expect(r"kernel-\w+")
        child.expect("4/5")
        child.expect(r"\(aloud\)")
        child.expect("drill progress")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    assert time.monotonic() - started < 60

    out = subprocess.run([sys.executable, "cli.py", "progress"], cwd=str(ROOT), env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0
    assert "1 mock interview(s)" in out.stdout
    row = next(line for line in out.stdout.splitlines() if f" {name} " in line)
    cells = row.split()  # the progress table has light rules: columns are separated by spaces
    assert cells[:3] == [name, "1", "1"] and "pass" in cells
