
from coach.mock import interview as M
from coach.progress import table as progress
from coach.watch import watch


def _interrupt():
    raise KeyboardInterrupt


def test_watch_regrades_on_save_and_enter_and_says_the_last_code(tmp_path):
    f = tmp_path / "mask.py"
    f.write_text("v1")
    codes = iter([1, 1, 0, 1])
    runs, cleared, said = [], [], []

    def run_once():
        runs.append(f.read_text())
        return next(codes)

    clock = M.FakeClock()
    script = [(1, lambda: f.write_text("v2 longer")),  # a save
              (3, ""),                                  # Enter: re-run by hand
              (4, "ignored text also re-runs"),
              (6, _interrupt)]
    # four runs before Ctrl-C: the first, the save, two lines typed; the last one returned 1
    code = watch(f, run_once, M.ScriptedInput(clock, script), clear=lambda: cleared.append(1),
                 say=said.append, poll_s=0.5)
    assert runs == ["v1", "v2 longer", "v2 longer", "v2 longer"]
    assert code == 130 and len(cleared) == 4  # Ctrl-C exits 130 everywhere
    assert "exit code 1" in said[-1]


def test_watch_ctrl_c_exits_130_and_says_the_last_pass(tmp_path):
    f = tmp_path / "grid.py"
    f.write_text("a")
    clock = M.FakeClock()
    said = []
    code = watch(f, lambda: 0, M.ScriptedInput(clock, [(2, _interrupt)]), say=said.append, poll_s=0.5)
    assert code == 130 and "exit code 0" in said[-1]


def test_watch_survives_eof_and_missing_file(tmp_path):
    f = tmp_path / "x.py"
    f.write_text("a")
    runs, said = [], []
    clock = M.FakeClock()

    class Src:  # stdin closed from the start; the file is deleted, then comes back
        n = 0

        def poll(self, timeout):
            clock.advance(timeout)
            self.n += 1
            if self.n == 2:
                f.unlink()
            if self.n == 4:
                f.write_text("back")
            if self.n == 6:
                raise KeyboardInterrupt
            return M.EOF

    code = watch(f, lambda: runs.append(1) or 1, Src(), say=said.append, poll_s=0.5)
    assert len(runs) == 2 and code == 130
    assert any("waiting for x.py" in s for s in said)


def test_progress_rows_show_counts_best_and_due():
    now = 50_000.0
    state = {"drills": {"mask": {"attempts": 3, "passes": 1, "best_s": 1.25, "best_mock_s": 75.0,
                                 "last": {"passed": False, "diagnosis": "grid"},
                                 "review": {"box": 0, "due": now - 1, "reviews": 3}},
                        "grid": {"attempts": 1, "passes": 1, "best_s": 2.0, "last": {"passed": True},
                                 "review": {"box": 1, "due": now + 86400, "reviews": 1}}},
             "checkpoints": {"why-mask": {"asked": 2, "passes": 1, "best_covered": 2,
                                          "last": {"rating": 4}, "review": {"box": 1, "due": now + 3 * 86400,
                                                                            "reviews": 2}}}}
    drills_rows, cp_rows, due = progress.rows(state, now, "en")
    by = {r[0]: r for r in drills_rows}
    assert by["mask"][1:] == ["3", "1", "1.2", "1:15", "grid", "0", "now"]
    assert by["grid"][5:] == ["pass", "1", "in 1 d"]
    assert by["offsets"][-1] == "new"  # never tried: new, not due (issue 20: ~55 "due now" items otherwise)
    cps = {r[0]: r for r in cp_rows}
    assert cps["why-mask"][1:] == ["2", "1", "2/3", "4/5", "1", "in 3 d"]
    assert "drill:mask" in due and "drill:grid" not in due and "checkpoint:why-mask" not in due
    assert "drill:offsets" not in due and "checkpoint:program-id-is-a-tile" not in due  # never tried or asked
    assert due == ["drill:mask"]
    for row in drills_rows:  # the review column and the due list say the same thing
        assert row[-1].startswith("now") == (f"drill:{row[0]}" in due), row
    for row in cp_rows:
        assert row[-1].startswith("now") == (f"checkpoint:{row[0]}" in due), row
    zh_rows, _, _ = progress.rows(state, now, "zh")
    assert {r[0]: r for r in zh_rows}["grid"][-1] == "1 天后"
