"""The warm grading worker (grader/run/worker.py): a fork per grade that is what a cold child would be, isolated like
one, killed like one, and a worker that leaves nothing behind however the parent ends."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import pytest

from grader.run import runner
from grader.run import worker
from grader.core.spec import ROOT

# A "submission" that reports what its process looks like, then passes (it is the vector-add reference).
PROBE = '''# drill: vector-add
import json, os, signal, sys
import torch
_fds = sorted(int(f) for f in os.listdir("/proc/self/fd"))
print("PROBE " + json.dumps({
    "pid": os.getpid(), "pgid": os.getpgid(0), "sid": os.getsid(0), "fds": _fds,
    "interpret": os.environ.get("TRITON_INTERPRET"), "cwd": os.getcwd(), "path0": sys.path[0],
    "cuda_initialized": torch.cuda.is_initialized(), "threads": len(os.listdir("/proc/self/task")),
    "sigint": signal.getsignal(signal.SIGINT) is signal.default_int_handler,
    "sigterm": signal.getsignal(signal.SIGTERM) == signal.SIG_DFL,
    "polluted": hasattr(torch, "_drill_polluted"), "home": os.environ.get("DRILL_HOME"),
    "stdin_tty": os.isatty(0), "argv0": os.path.basename(sys.argv[0]), "random": __import__("random").random(),
}), flush=True)
torch._drill_polluted = True  # must not reach the next grade
'''


def reference() -> str:
    return (ROOT / "solutions" / "vector_add.py").read_text(encoding="utf-8")


def probe_file(tmp_path, name="probe.py") -> Path:
    body = reference().split("\n", 1)[1]  # drop its own `# drill:` line
    path = tmp_path / name
    path.write_text(PROBE + body, encoding="utf-8")
    return path


def probe_of(v) -> dict:
    out = "\n".join(r["output"] for r in v.runs)
    line = next(ln for ln in out.splitlines() if ln.startswith("PROBE "))
    return json.loads(line[len("PROBE "):])


@pytest.fixture
def cold(monkeypatch):
    """Grades in this test run as cold children, whatever the session does."""
    monkeypatch.setattr(worker, "_current", None)


@pytest.fixture
def warm_worker():
    """The session's worker (tests/conftest.py)."""
    w = worker.current("cpu")
    if w is None:
        pytest.skip("DRILL_NO_WORKER is set: every grade runs cold")
    assert w.usable(), w.status()
    return w


@pytest.fixture
def own_worker(monkeypatch):
    """A worker of this test's own (a test may end it, or it may be killed)."""
    monkeypatch.setattr(worker, "_current", None)
    with worker.warm() as workers:
        w = workers.get("cpu")
        assert w.usable(), w.status()
        yield w


def test_the_warm_process_is_clean_before_any_fork(warm_worker):
    info = warm_worker.status()
    assert info["threads"] == 1 and info["cuda_initialized"] is False
    maps = Path(f"/proc/{info['pid']}/maps").read_text()
    assert "libcuda" not in maps  # never touched the CUDA driver (on a GPU machine: never initialised CUDA)
    # Nothing of a learner's, nor a scratch file, is mapped; the checkout and the venv may live under /tmp (a CI clone).
    tmp = tempfile.gettempdir().rstrip("/") + "/"
    ours = (sys.prefix, sys.base_prefix, str(Path(__file__).resolve().parent.parent))
    assert not any("learner_submission" in ln or (tmp in ln and not any(p in ln for p in ours))
                   for ln in maps.splitlines())


@pytest.mark.slow
def test_one_warm_process_per_mode_because_tritons_library_is_jitted_at_import(warm_worker, monkeypatch):
    """tl.sum, tl.sigmoid, tl.cdiv are @jit functions made when triton.language is imported: interpreted in the
    interpreter's warm process, compiled in the CUDA one. A kernel calling them runs in the interpreter run."""
    assert warm_worker.status()["interpret"] and warm_worker.status()["tl_sum"] == "InterpretedFunction"
    environ = Path(f"/proc/{warm_worker.status()['pid']}/environ").read_bytes().split(b"\0")
    assert b"TRITON_INTERPRET=1" in environ
    compiled = worker.Worker(interpret=False).start()
    try:
        assert compiled.usable(), compiled.status()
        info = compiled.status()
        assert not info["interpret"] and info["tl_sum"] == "JITFunction" and not info["cuda_initialized"]
        environ = Path(f"/proc/{info['pid']}/environ").read_bytes().split(b"\0")
        assert not any(e.startswith(b"TRITON_INTERPRET=") for e in environ)
        log = open(os.devnull, "wb")
        assert compiled.spawn(["--device", "cpu", "--file", "x", "--drill", "mask", "--out", "y"], "/",
                              dict(compiled.env), log.fileno()) is None  # an interpreter run is refused there
        log.close()
    finally:
        compiled.close()
    for name in ("row_sum", "gelu"):  # tl.sum / tl.sigmoid inside the learner's kernel
        v = runner.grade(ROOT / "solutions" / f"{name}.py", device="cpu")
        assert v.passed, (name, v.diagnosis, v.detail)


@pytest.mark.slow
def test_a_fork_is_what_a_cold_child_would_be(tmp_path, warm_worker, monkeypatch):
    path = probe_file(tmp_path)
    v1 = runner.grade(path, device="cpu")
    v2 = runner.grade(path, device="cpu")
    assert v1.passed and v2.passed, (v1.diagnosis, v1.detail)
    warm1, warm2 = probe_of(v1), probe_of(v2)
    monkeypatch.setattr(worker, "_current", None)
    vc = runner.grade(path, device="cpu")
    assert vc.passed
    coldp = probe_of(vc)

    for p in (warm1, warm2, coldp):
        assert p["pgid"] == p["pid"] == p["sid"]  # its own session and process group: killable as one
        assert p["interpret"] == "1" and p["cwd"] == str(tmp_path) and p["path0"] == str(tmp_path)
        assert p["cuda_initialized"] is False and p["sigint"] and p["sigterm"] and not p["stdin_tty"]
        assert p["home"] == os.environ["DRILL_HOME"]  # the parent's environment of now, not the worker's start
    assert warm1["threads"] == 1  # (a cold child also has OpenBLAS's thread; the fork runs only the grade's)
    assert warm1["fds"] == coldp["fds"]  # no socket, pipe or file of the warm process leaks into the learner's
    assert warm1["pid"] != warm2["pid"] and not warm2["polluted"]  # each grade a fresh fork
    assert warm1["random"] != warm2["random"]  # re-seeded, as a new process would be
    assert v1.info["cpu"]["phases"]["imports_s"] < 0.5 < vc.info["cpu"]["phases"]["imports_s"]
    assert [c["name"] for c in v1.checks] == [c["name"] for c in vc.checks]


@pytest.mark.slow
def test_verdicts_match_the_cold_child(warm_worker):
    wrong = ROOT / "tests" / "submissions" / "wrong"
    # a triton_op file too: the warm process has torch._dynamo imported (OPTIONAL_WARM_IMPORTS), a cold child not
    for path in (wrong / "no_mask.py", wrong / "custom_op_kernel_unmasked_load.py"):
        warm_v = runner.grade(path, device="cpu")
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(worker, "_current", None)
            cold_v = runner.grade(path, device="cpu")
        assert (warm_v.diagnosis, warm_v.line, warm_v.checks) == (cold_v.diagnosis, cold_v.line, cold_v.checks)


def _gone(pid: int, within: float = 5.0) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        if Path(f"/proc/{pid}/stat").exists() and Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z":
            return True  # a zombie: dead, not yet reaped by a parent that is not ours
        time.sleep(0.05)
    return False


@pytest.mark.slow
def test_a_hang_kills_only_that_grade_with_its_line(tmp_path, warm_worker):
    pid_file = tmp_path / "helper.pid"
    hang = tmp_path / "hang.py"
    hang.write_text("# drill: vector-add\nimport subprocess, time\n"
                    f"p = subprocess.Popen(['sleep', '300'])\nopen({str(pid_file)!r}, 'w').write(str(p.pid))\n"
                    "def add(x, y):\n    while True:\n        time.sleep(0.01)\n", encoding="utf-8")
    v = runner.grade(hang, device="cpu", timeout=3)
    assert v.diagnosis == "timeout" and v.line in (6, 7)  # the faulthandler's stuck line, as from a cold child
    assert _gone(int(pid_file.read_text()))  # the learner's own process, in the fork's group, is gone too
    ok = runner.grade(ROOT / "solutions" / "vector_add.py", device="cpu")
    assert ok.passed and warm_worker.status()["failure"] is None  # the worker carries on


@pytest.mark.slow
def test_a_crash_is_a_crash_and_the_worker_survives(tmp_path, warm_worker):
    crash = tmp_path / "crash.py"
    crash.write_text("# drill: vector-add\nimport os, signal\n"
                     "def add(x, y):\n    os.kill(os.getpid(), signal.SIGSEGV)\n", encoding="utf-8")
    v = runner.grade(crash, device="cpu")
    assert v.diagnosis == "crash" and v.detail["signal"] == "SIGSEGV"
    quits = tmp_path / "quits.py"
    quits.write_text("# drill: vector-add\nimport os\ndef add(x, y):\n    os._exit(3)\n", encoding="utf-8")
    v = runner.grade(quits, device="cpu")
    assert v.diagnosis == "crash" and v.detail["returncode"] == 3
    assert warm_worker.status()["failure"] is None and warm_worker.proc.poll() is None


@pytest.mark.slow
def test_a_learner_that_kills_the_warm_process_gets_a_verdict_and_the_next_grade_runs_cold(tmp_path, own_worker):
    killer = tmp_path / "killer.py"
    killer.write_text("# drill: vector-add\nimport os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n"
                      "import time\ntime.sleep(30)\n", encoding="utf-8")
    v = runner.grade(killer, device="cpu", timeout=20)
    assert v.diagnosis == "crash" and not v.passed
    assert own_worker.failure
    ok = runner.grade(ROOT / "solutions" / "vector_add.py", device="cpu")
    assert ok.passed and ok.info["cpu"]["phases"]["imports_s"] > 0.3  # a cold child


def test_no_worker_means_cold_children(tmp_path, monkeypatch):
    monkeypatch.setattr(worker, "_current", None)
    w = worker.Worker(python=str(tmp_path / "no-python-here")).start()
    assert not w.usable(timeout=5) and w.failure
    monkeypatch.setattr(worker, "_current", worker.Workers({"cpu": w}))
    v = runner.grade(ROOT / "solutions" / "vector_add.py", device="cpu")
    assert v.passed and v.info["cpu"]["phases"]["imports_s"] > 0.3  # a cold child imported torch itself
    w.close()
    monkeypatch.setenv("DRILL_NO_WORKER", "1")
    monkeypatch.setattr(worker, "_current", None)
    with worker.warm() as none:
        assert none is None


def test_env_compatibility_ignores_only_run_time_variables():
    base = {"PATH": "/bin", "PYTHONPATH": "/x", "DRILL_HOME": "/a", "OPENBLAS_NUM_THREADS": "1"}
    assert worker.env_compatible(base, {"PATH": "/bin", "PYTHONPATH": "/x", "DRILL_HOME": "/b", "NO_COLOR": "1",
                                        "TRITON_INTERPRET": "1"})
    assert not worker.env_compatible(base, {"PATH": "/bin", "PYTHONPATH": "/y"})
    assert not worker.env_compatible(base, {"PATH": "/bin", "PYTHONPATH": "/x", "TORCH_LOGS": "output_code"})
    assert not worker.env_compatible(base, {"PATH": "/bin", "PYTHONPATH": "/x", "TRITON_CACHE_DIR": "/c"})


@pytest.mark.slow
def test_an_environment_the_worker_cannot_stand_in_for_runs_cold(tmp_path, warm_worker, monkeypatch):
    monkeypatch.setenv("TRITON_DEBUG_SOMETHING", "1")  # read at import by some libraries: not a fork's to change
    v = runner.grade(probe_file(tmp_path), device="cpu")
    assert v.passed and v.info["cpu"]["phases"]["imports_s"] > 0.3


@pytest.mark.slow
def test_progress_goes_to_the_file_the_parent_hands_over(tmp_path, warm_worker):
    """The CUDA run's live timing lines go to the parent's terminal: the descriptor travels over the socket."""
    talker = tmp_path / "talker.py"
    talker.write_text("# drill: vector-add\nimport os\nos.write(int(os.environ['DRILL_PROGRESS_FD']), b'timing 1/5')\n",
                      encoding="utf-8")
    r, w = os.pipe()
    log = open(tmp_path / "log", "w+b")
    child = warm_worker.spawn(["--file", str(talker), "--drill", "vector-add", "--device", "cpu",
                              "--out", str(tmp_path / "out.json")], str(tmp_path),
                             runner.child_env(PYTHONDONTWRITEBYTECODE="1"), log.fileno(), w)
    os.close(w)
    assert child is not None and child.wait(timeout=60) == 0
    assert os.read(r, 100) == b"timing 1/5"
    os.close(r)
    log.close()


@pytest.mark.slow
def test_grades_from_several_threads_share_one_worker(tmp_path, warm_worker):
    """drill mock grades each saved file on its own thread."""
    files = [ROOT / "solutions" / "vector_add.py", ROOT / "drills" / "grid.py", probe_file(tmp_path)]
    results = {}

    def grade(p):
        results[p.name] = runner.grade(p, device="cpu")

    threads = [threading.Thread(target=grade, args=(p,)) for p in files]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert results["vector_add.py"].passed and results["probe.py"].passed
    assert results["grid.py"].diagnosis == "hole"
    assert probe_of(results["probe.py"])["pid"] != warm_worker.status()["pid"]


def test_interpreter_speedups_skip_only_the_discarded_overflow_check():
    out = subprocess.run([sys.executable, "-c", (
        "from grader.watch import interp_speed; import torch; r = interp_speed.install(); "
        "from triton.runtime import interpreter as I; o = I.interpreter_builder.options; "
        "print(r['overflow_check_skipped'], o.sanitize_overflow, o.debug, torch.get_num_threads())")],
        cwd=str(ROOT), capture_output=True, text=True, env=runner.child_env(), timeout=120)
    assert out.returncode == 0, out.stderr
    skipped, sanitize, debug, threads = out.stdout.split()
    assert debug == "False" and threads == "1"
    assert (skipped, sanitize) in {("True", "False"), ("False", "True")}  # off only where it was discarded


# -- the parent ends: nothing is left behind --------------------------------------------------------------------------
def _marked_processes(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            env = Path(f"/proc/{entry}/environ").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().split(")")[-1].split()[0]
        except OSError:
            continue
        if marker.encode() in env and state != "Z":
            found.append(int(entry))
    return found


def _left_in(tmp: Path) -> list:
    """What is left in TMPDIR besides Inductor's own cache folder (torchinductor_<user>: torch._dynamo creates it at
    import, and the warm process imports torch._dynamo for the torch.compile drills; a cache, not a grade's folder)."""
    return [p for p in tmp.iterdir() if not p.name.startswith("torchinductor_")]


@pytest.mark.slow
@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_watch_ends_its_worker_and_forks_on_a_signal(tmp_path, sig, code):
    marker = f"DRILL_TEST_MARKER={uuid.uuid4().hex}"
    started = tmp_path / "started"
    hang = tmp_path / "hang.py"
    hang.write_text(f"# drill: vector-add\nopen({str(started)!r}, 'w').close()\nimport time\ntime.sleep(300)\n",
                    encoding="utf-8")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(runner.child_env(), TMPDIR=str(tmp), NO_COLOR="1", DRILL_TEST_MARKER=marker.split("=", 1)[1])
    proc = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "grade", str(hang), "--watch", "--device", "cpu"],
                            cwd=str(tmp_path), env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        end = time.monotonic() + 120
        while not started.exists() and time.monotonic() < end:
            time.sleep(0.05)
        assert started.exists(), "the grade never started"
        assert len(_marked_processes(marker)) >= 3  # drill itself, the warm process, the fork grading the file
        proc.send_signal(sig)
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == code, out.decode(errors="replace")[-2000:]
    deadline = time.monotonic() + 5
    while _marked_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _marked_processes(marker) == []
    assert _left_in(tmp) == []  # the grade's temporary folder went with it


@pytest.mark.slow
def test_mock_ends_its_worker_and_forks_on_sigterm(tmp_path):
    marker = uuid.uuid4().hex
    folder = tmp_path / "interview"
    started = tmp_path / "started"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(runner.child_env(), TMPDIR=str(tmp), NO_COLOR="1", DRILL_TEST_MARKER=marker, DRILL_FORCE_CPU="1",
               DRILL_HOME=str(tmp_path / "home"), DRILL_LANG="en")
    proc = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "mock", "--minutes", "5", "--questions", "0",
                             "--seed", "0", "--dir", str(folder)], cwd=str(tmp_path), env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        end = time.monotonic() + 60
        while not list(folder.glob("*.py")) and time.monotonic() < end:
            time.sleep(0.05)
        task = next(folder.glob("*.py"))
        name = task.read_text().splitlines()[0]
        task.write_text(f"{name}\nopen({str(started)!r}, 'w').close()\nimport time\ntime.sleep(300)\n")  # a save
        end = time.monotonic() + 120
        while not started.exists() and time.monotonic() < end:
            time.sleep(0.05)
        assert started.exists(), "the saved file was never graded"
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 143, out.decode(errors="replace")[-2000:]
    deadline = time.monotonic() + 5
    while _marked_processes(f"DRILL_TEST_MARKER={marker}") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _marked_processes(f"DRILL_TEST_MARKER={marker}") == []
    assert _left_in(tmp) == []


@pytest.mark.slow
def test_the_cuda_run_forks_from_the_compiled_warm_process_and_checks_the_device_there(monkeypatch, warm_worker):
    """As on a GPU machine whose torch has no CUDA: the CUDA run is a fork of the compiled-mode warm process, finds
    no CUDA in the fork (never in the warm process), and the grade falls back to the interpreter alone."""
    monkeypatch.setattr(runner, "nvidia_driver_present", lambda: True)
    compiled = worker.Worker(interpret=False).start()
    monkeypatch.setattr(worker, "_current", worker.Workers({"cpu": warm_worker, "cuda": compiled}))
    try:
        forks = []
        real_spawn = compiled.spawn
        monkeypatch.setattr(compiled, "spawn", lambda *a, **kw: forks.append(real_spawn(*a, **kw)) or forks[-1])
        v = runner.grade(ROOT / "solutions" / "vector_add.py", device="auto")
        assert forks and forks[0] is not None and forks[0].returncode == 0  # the CUDA run was a fork, and ended
        assert v.device == "cpu" and v.passed
        assert not compiled.status()["cuda_initialized"] and compiled.status()["failure"] is None
    finally:
        compiled.close()


def test_bytecode_goes_to_drills_cache_only_when_torch_was_installed_without_it(tmp_path):
    """Normally no child writes bytecode (nothing appears beside the learner's file); where torch has none (a
    --no-compile or read-only install: every child would compile ~1000 modules again), it goes to drill's cache.
    Checked in a Python of its own: the environment and `proc._torch_has_bytecode` it changes are the whole
    process's, and the session's queued grades running beside this test would see them (and run cold, compiling
    torch's bytecode into the test's cache: 16 s for one grade, 2026-12-02)."""
    import subprocess
    import sys

    learner = tmp_path / "work"
    learner.mkdir()
    (learner / "mine.py").write_text("X = 1\n")
    script = f"""
import os, subprocess, sys
from grader.run import proc
proc._torch_has_bytecode = lambda: True
assert proc.bytecode_env() == {{"PYTHONDONTWRITEBYTECODE": "1"}}, proc.bytecode_env()
proc._torch_has_bytecode = lambda: False
os.environ["XDG_CACHE_HOME"] = {str(tmp_path / "cache")!r}
os.environ["PYTHONDONTWRITEBYTECODE"] = "1"  # a user's (or an image's) setting
os.environ.pop("PYTHONPYCACHEPREFIX", None)
env = proc.child_env(**proc.bytecode_env())
assert env["PYTHONPYCACHEPREFIX"] == {str(tmp_path / "cache" / "drill" / "pycache")!r}, env["PYTHONPYCACHEPREFIX"]
subprocess.run([sys.executable, "-c", "import mine"], cwd={str(learner)!r}, env=env, check=True)
"""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    subprocess.run([sys.executable, "-c", script], env=env, check=True, timeout=120)
    assert not (learner / "__pycache__").exists()
    assert list((tmp_path / "cache" / "drill" / "pycache").rglob("mine*.pyc"))
