import json
import multiprocessing as mp
import os
from types import SimpleNamespace

import pytest

from coach import store as store_mod
from coach.store import Store, record_grade


def _verdict(passed=True, elapsed=1.5, drill="mask", diagnosis=None):
    return SimpleNamespace(drill=drill, passed=passed, diagnosis=diagnosis, device="cpu", file="/x/mask.py",
                           elapsed_s=elapsed)


def test_crash_mid_write_leaves_old_file(tmp_path, monkeypatch):
    s = Store(tmp_path)
    with s.update() as st:
        st["drills"]["mask"] = {"attempts": 1}
    before = s.path.read_text()

    real_fsync = os.fsync

    def boom(fd):
        raise OSError("disk gone")

    monkeypatch.setattr(store_mod.os, "fsync", boom)
    with s.update() as st:  # the failed write is reported, not raised: the command goes on
        st["drills"]["mask"]["attempts"] = 99
    monkeypatch.setattr(store_mod.os, "fsync", real_fsync)
    assert any("not saved" in w and "disk gone" in w for w in s.warnings)
    assert s.path.read_text() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".state.json.")] == []  # no temp left
    assert Store(tmp_path).read()["drills"]["mask"]["attempts"] == 1


def test_crash_in_replace_leaves_old_file(tmp_path, monkeypatch):
    s = Store(tmp_path)
    with s.update() as st:
        st["mocks"].append({"n": 1})
    monkeypatch.setattr(store_mod.os, "replace", lambda *a: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        with s.update() as st:
            st["mocks"].append({"n": 2})
    monkeypatch.undo()
    assert Store(tmp_path).read()["mocks"] == [{"n": 1}]


def _bump(root, n):
    s = Store(root)
    for _ in range(n):
        with s.update() as st:
            c = st["checkpoints"].setdefault("counter", {"asked": 0})
            c["asked"] += 1


@pytest.mark.slow
def test_concurrent_writers_lose_nothing(tmp_path):
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_bump, args=(str(tmp_path), 40)) for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert Store(tmp_path).read()["checkpoints"]["counter"]["asked"] == 160


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"drills": []}', '{"mocks": {}}', ""])
def test_corrupt_file_backed_up_and_replaced(tmp_path, text):
    s = Store(tmp_path)
    tmp_path.mkdir(exist_ok=True)
    s.path.write_text(text)
    state = s.read()
    assert state == store_mod.empty_state()
    assert len(s.warnings) == 1 and "corrupt" in s.warnings[0] and "\n" not in s.warnings[0]
    backups = list(tmp_path.glob("state.corrupt-*.json"))
    assert len(backups) == 1 and backups[0].read_text() == text
    with s.update() as st:  # and it works afterwards
        st["mocks"].append({})
    assert json.loads(s.path.read_text())["mocks"] == [{}]


def test_record_grade_keeps_elapsed_best_and_review(tmp_path):
    s = Store(tmp_path)
    record_grade(s, _verdict(passed=False, elapsed=0.2, diagnosis="mask"), now=100.0)
    record_grade(s, _verdict(passed=True, elapsed=2.0), now=200.0)
    record_grade(s, _verdict(passed=True, elapsed=1.2), now=300.0)
    d = s.read()["drills"]["mask"]
    assert d["attempts"] == 3 and d["passes"] == 2
    assert d["best_s"] == 1.2  # the fastest passing grade; the faster failing one does not count
    assert [h["elapsed_s"] for h in d["history"]] == [0.2, 2.0, 1.2]
    assert d["review"]["box"] == 1  # fail -> box 0, pass -> box 1, early pass -> unchanged
    record_grade(s, _verdict(passed=False, diagnosis="grid"), now=400.0)
    d = s.read()["drills"]["mask"]
    assert d["review"]["box"] == 0 and d["review"]["due"] == 400.0 and d["best_s"] == 1.2


def test_old_drill_entry_gains_new_fields(tmp_path):
    s = Store(tmp_path)
    tmp_path.mkdir(exist_ok=True)
    s.path.write_text(json.dumps({"version": 1, "drills": {"mask": {"attempts": 2, "passes": 0, "hints_seen": 1,
                                                                     "last": None, "history": []}}}))
    record_grade(s, _verdict(passed=True, elapsed=3.0), now=1.0)
    d = s.read()["drills"]["mask"]
    assert d["attempts"] == 3 and d["best_s"] == 3.0 and d["hints_seen"] == 1


def test_binary_garbage_is_quarantined_like_text(tmp_path):
    (tmp_path / "state.json").write_bytes(bytes(range(256)) * 8)
    s = Store(tmp_path)
    assert s.read()["drills"] == {}
    assert any("corrupt" in w for w in s.warnings)
    assert [p for p in tmp_path.iterdir() if p.name.startswith("state.corrupt-")]


def test_unwritable_home_warns_and_carries_on(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    s = Store(blocker / "drill")  # mkdir under a file fails even for root
    assert s.read()["drills"] == {}
    with s.update() as st:
        st["drills"]["mask"] = {"attempts": 1}
    assert s.warnings and all("not saved" in w for w in s.warnings)
