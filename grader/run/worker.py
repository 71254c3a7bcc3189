"""A warm grading worker: torch and Triton imported once, a fresh fork per grade.

    with worker.warm():          # drill grade --watch, drill mock, the test session
        runner.grade(...)        # the grade's child processes are forks of a warm process

What runs, in order:
1. `warm()` starts `python -m grader.run.worker --fd N` (its own session) with one end of a Unix socket: one warm
   process for the interpreter runs and, on a machine with an NVIDIA driver, one for the CUDA runs. Two, because
   Triton's own library (tl.sum, tl.max, tl.sigmoid, tl.cdiv: triton/language/standard.py) is made of `@jit`
   functions that become interpreted or compiled when `triton.language` is imported: the interpreter's warm process
   imports Triton with TRITON_INTERPRET=1, the CUDA one without (a fork cannot change it afterwards). Each imports
   torch, Triton, numpy, the grader's modules (texts.yaml read) and the torch module every training grade imports
   on first use (symbolic_shapes, for torch.autograd.grad), and nothing else: no learner code, no CUDA (it never asks torch
   about CUDA; the device check happens in each fork), no torch op (so no thread pool; OpenBLAS is held to one
   thread). It checks it has exactly one thread, then says "ready".
2. For each child run of a grade, the parent sends the child's arguments, working folder, environment and two
   open files (the log for the child's stdout/stderr, and the terminal for live progress) over the socket.
3. The warm process forks. The fork calls setsid() (its own process group, like `start_new_session=True`), then
   says so; only then is its pid handed to the parent, so a kill of the group can never miss it. In the fork:
   stdin is /dev/null, stdout and stderr the log, every other inherited descriptor closed, signal handlers back to
   Python's defaults, the random generators re-seeded, the environment, folder, sys.argv and sys.path[0] those a
   cold child would have. Then the same code as a cold child, `grader.run.child.run`: the interpreter hooks
   (interpreter run) or CUDA (CUDA run), the learner's import, the calls, the result file.
4. The warm process reaps the fork and sends its exit status. The parent treats the fork like a Popen: the same
   timeout, SIGUSR1 for the faulthandler's stuck-line report, SIGKILL to the process group, the same result file.

A fork that hangs or crashes ends only that grade. The parent ends the workers on exit, Ctrl-C, SIGTERM or SIGHUP
(every live fork's group, then the warm process); a warm process ends its forks and itself when the socket closes
(the parent died), and each fork has PR_SET_PDEATHSIG so it dies with the warm process. When a worker cannot start
or refuses a request, the grade runs today's cold child (`python -m grader.run.child`). DRILL_NO_WORKER=1: always cold.
"""
from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time

from grader.run.proc import bytecode_env, child_env, kill_pgid

# Environment variables that a grading process reads while it runs, not while torch and Triton are imported: the
# warm process may have been started with other values. Any other difference (TORCH_*, TRITON_*, PYTHONPATH, ...)
# and the grade runs as a cold child.
RUN_TIME_ENV = ("DRILL_", "NO_COLOR", "PYTEST_", "COLUMNS", "LINES", "TERM", "LANG", "LC_", "PWD", "OLDPWD",
                "TRITON_INTERPRET", "SHLVL", "_")
WARM_ENV = {"OPENBLAS_NUM_THREADS": "1"}   # numpy's OpenBLAS starts a thread per core at import: not in a parent
READY_TIMEOUT_S = 120.0                    # imports on a loaded 2-core machine
MAX_MESSAGE = 1 << 20


def _runtime_key(key: str) -> bool:
    return key == "_" or any(key.startswith(p) for p in RUN_TIME_ENV if p != "_")


def env_compatible(warm_env: dict, env: dict) -> bool:
    """Could a fork of a process started with warm_env stand in for a cold child started with env?"""
    keys = {k for k in set(warm_env) | set(env) if not _runtime_key(k) and k not in WARM_ENV}
    return all(warm_env.get(k) == env.get(k) for k in keys)


# -- the parent's side ----------------------------------------------------------------------------------------------
class ForkedChild:
    """A fork of the warm process, as a grade's parent sees it: enough of Popen for runner.wait_child/kill_group."""

    def __init__(self, worker: "Worker"):
        self.worker = worker
        self.pid: int | None = None
        self.returncode: int | None = None
        self.refused: str | None = None
        self.started = threading.Event()
        self.exited = threading.Event()

    def poll(self):
        return self.returncode

    def wait(self, timeout=None):
        if not self.exited.wait(timeout):
            raise subprocess.TimeoutExpired(__name__, timeout)  # the fork of this worker
        return self.returncode

    def _exit(self, returncode):
        if not self.exited.is_set():
            self.returncode = returncode
            self.exited.set()
            self.started.set()


class Worker:
    """The parent's handle on one warm process. Thread-safe: mock grades several files on background threads."""

    def __init__(self, interpret: bool = True, python: str = sys.executable):
        self.python = python
        self.interpret = interpret
        self.env = child_env(**bytecode_env(), **WARM_ENV)
        if interpret:   # Triton's library @jit functions are made when it is imported (module docstring)
            self.env["TRITON_INTERPRET"] = "1"
        else:
            self.env.pop("TRITON_INTERPRET", None)
        self.proc: subprocess.Popen | None = None
        self.sock: socket.socket | None = None
        self.ready = threading.Event()
        self.failure: str | None = None
        self.info: dict = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._children: dict[int, ForkedChild] = {}
        self._reader: threading.Thread | None = None
        self.closed = False

    # lifecycle
    def start(self) -> "Worker":
        from grader.core.spec import ROOT

        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.proc = subprocess.Popen([self.python, "-m", "grader.run.worker", "--fd", str(child.fileno())],
                                         cwd=str(ROOT), env=self.env, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         pass_fds=(child.fileno(),), start_new_session=True)
        except OSError as e:
            parent.close()
            self.failure = f"could not start: {e}"
            self.ready.set()
            return self
        finally:
            child.close()
        self.sock = parent
        self._reader = threading.Thread(target=self._read, name="grader-worker-reader", daemon=True)
        self._reader.start()
        return self

    def usable(self, timeout: float = READY_TIMEOUT_S) -> bool:
        """Wait for the warm process (its imports) at most `timeout` seconds; False when it failed or is closed."""
        if not self.ready.wait(timeout) and not self.failure:
            self.failure = f"not ready after {timeout:.0f} s"
        return self.failure is None and not self.closed

    def close(self) -> None:
        """End every live fork's group, then the warm process; safe to call twice, from any thread."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            children = list(self._children.values())
        for c in children:
            kill_pgid(c.pid)
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)
            self.sock.close()
        if self.proc is not None:
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                kill_pgid(self.proc.pid)
                self.proc.wait()
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(timeout=5)
        for c in children:
            c._exit(-signal.SIGKILL)

    # one grading process
    def spawn(self, argv: list[str], cwd: str, env: dict, log_fd: int, progress_fd: int | None = None,
              timeout: float = 30.0) -> ForkedChild | None:
        """Fork a grading process (see the module docstring); None when the worker cannot (run a cold child)."""
        if not self.usable() or not env_compatible(self.env, env):
            return None
        child = ForkedChild(self)
        fds = [log_fd] + ([progress_fd] if progress_fd is not None else [])
        with self._lock:
            if self.closed:
                return None
            rid = next(self._ids)
            self._children[rid] = child
        message = json.dumps({"id": rid, "argv": argv, "cwd": cwd, "env": env,
                              "progress": progress_fd is not None}).encode()
        try:
            socket.send_fds(self.sock, [message], fds)
        except OSError as e:
            self._forget(rid)
            self.failure = f"lost: {e}"
            return None
        child.started.wait(timeout)
        if child.pid is not None:
            return child
        self._forget(rid)
        if not child.refused:
            self.failure = self.failure or "did not answer"
        return None

    def _forget(self, rid: int) -> None:
        with self._lock:
            self._children.pop(rid, None)

    def _read(self) -> None:
        """The reader thread: ready, started, refused and exited messages, until the socket closes."""
        try:
            while True:
                data = self.sock.recv(MAX_MESSAGE)
                if not data:
                    break
                self._dispatch(json.loads(data))
        except (OSError, ValueError):
            pass
        # The warm process is gone: whatever it forked is ended here, and nothing waits forever.
        with self._lock:
            children = list(self._children.items())
            self._children.clear()
        if not self.closed and not self.failure:
            self.failure = "the warm process ended"
        self.ready.set()
        for _, c in children:
            if c.pid is not None and not c.exited.is_set():
                kill_pgid(c.pid)
            c._exit(-signal.SIGKILL)

    def _dispatch(self, msg: dict) -> None:
        if "ready" in msg:
            self.info = msg
            if not msg["ready"]:
                self.failure = msg.get("error", "failed to start")
            self.ready.set()
            return
        with self._lock:
            child = self._children.get(msg.get("id"))
            if "exited" in msg or "refused" in msg:
                self._children.pop(msg.get("id"), None)
        if child is None:
            return
        if "started" in msg:
            child.pid = msg["started"]
            child.started.set()
        elif "refused" in msg:
            child.refused = msg["refused"]
            child.started.set()
        elif "exited" in msg:
            child._exit(msg["returncode"])

    def status(self) -> dict:
        return {"pid": self.proc.pid if self.proc else None, "ready": self.ready.is_set(), "failure": self.failure,
                "live": len(self._children), **{k: v for k, v in self.info.items() if k != "ready"}}


class Workers:
    """The warm processes of one `warm()` block: the interpreter's, and the CUDA one on a machine with a driver."""

    def __init__(self, by_device: dict):
        self.by_device = by_device

    @classmethod
    def start(cls, cuda: bool) -> "Workers":
        by_device = {"cpu": Worker(interpret=True).start()}
        if cuda:
            by_device["cuda"] = Worker(interpret=False).start()
        return cls(by_device)

    def get(self, device: str) -> Worker | None:
        return self.by_device.get(device)

    def usable(self, timeout: float = READY_TIMEOUT_S) -> bool:
        return all(w.usable(timeout) for w in self.by_device.values())

    def status(self) -> dict:
        return {d: w.status() for d, w in self.by_device.items()}

    def close(self) -> None:
        for w in self.by_device.values():
            w.close()


_current: Workers | None = None


def current(device: str = "cpu") -> Worker | None:
    """The worker that forks grading processes for `device` now (set by `warm`), or None: cold children."""
    return _current.get(device) if _current is not None else None


@contextlib.contextmanager
def warm(enabled: bool = True):
    """Grades inside run in forks of warm processes, ended on the way out however that happens. Nested uses share
    the outer ones. DRILL_NO_WORKER=1 (or enabled=False) keeps today's cold children."""
    global _current
    if _current is not None or not enabled or os.environ.get("DRILL_NO_WORKER") or not hasattr(os, "fork"):
        yield _current
        return
    from grader.run.proc import nvidia_driver_present

    workers = Workers.start(cuda=nvidia_driver_present())
    _current = workers
    try:
        yield workers
    finally:
        _current = None
        workers.close()


# -- the warm process -----------------------------------------------------------------------------------------------
WARM_IMPORTS = ("torch", "triton", "triton.language", "triton.runtime.interpreter", "numpy", "drills",
                "grader.run.child", "grader.judge.diagnose", "grader.judge.evaluate", "grader.watch.lanes", "grader.watch.launches",
                "grader.watch.memory", "grader.watch.torch_watch", "grader.watch.interp_compat", "grader.watch.bf16_cpu", "grader.watch.interp_speed",
                "grader.watch.libdevice_cpu", "grader.speed.timing", "grader.run.budget", "grader.families.registry", "grader.watch.compile_check",
                "triton.testing", "triton.runtime.autotuner", "triton.compiler.compiler", "triton.backends.compiler",
                # imported by every grade on first use: once here instead of in each fork (texts.yaml, parsed by
                # grader.core.catalog, ~0.1 s a grade)
                "grader.intake.static", "grader.core.catalog")
# torch's own modules that a grade imports on first use, imported here when this torch has them (best effort):
# torch.autograd.grad imports symbolic_shapes, and sympy with it, in every training grade (~0.3 s a grade); a grade
# that runs torch.compile or registers a torch.library.triton_op imports torch._dynamo (triton_op through
# torch._inductor): 0.5-1.1 s a grade less, 0.9 s more for the worker's start (this 2-core machine, 2026-12-02).
OPTIONAL_WARM_IMPORTS = ("torch.fx.experimental.symbolic_shapes", "torch._dynamo")


def thread_count() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def serve(sock: socket.socket) -> int:
    """The warm process: import, say ready, then fork one grading process per request until the socket closes."""
    import importlib

    interpret = os.environ.get("TRITON_INTERPRET") == "1"  # decided by the parent, before Triton is imported
    started = time.perf_counter()
    try:
        for name in WARM_IMPORTS:
            importlib.import_module(name)
        importlib.import_module("grader.families.registry").families()  # every rule module, once for all forks
        importlib.import_module("grader.core.catalog").load()              # texts.yaml, read once for all forks
        extra = []
        for name in OPTIONAL_WARM_IMPORTS:
            with contextlib.suppress(Exception):
                importlib.import_module(name)
                extra.append(name)
    except BaseException as e:  # noqa: BLE001 - reported to the parent, which grades cold
        _send(sock, {"ready": False, "error": f"import failed: {type(e).__name__}: {e}"[:500]})
        return 1
    import torch
    import triton.language as tl
    if interpret:
        warm_front_end()
    else:
        warm_cache_key()
    threads = thread_count()
    if threads != 1:  # a fork copies only the calling thread: another one holding a lock would deadlock the fork
        _send(sock, {"ready": False, "error": f"{threads} threads after the imports; forking is not safe"})
        return 1
    import gc
    gc.freeze()   # the imported world is never collected: forks neither scan it nor copy its pages for the GC
    _send(sock, {"ready": True, "pid": os.getpid(), "imports_s": round(time.perf_counter() - started, 3),
                 "torch": torch.__version__, "cuda_initialized": bool(torch.cuda.is_initialized()),
                 "threads": threads, "interpret": interpret, "tl_sum": type(tl.sum).__name__, "optional_imports": extra})
    live: dict[int, tuple[int, int | None]] = {}   # pid -> (request id, pidfd)
    sel = selectors.DefaultSelector()
    sel.register(sock, selectors.EVENT_READ, "request")

    def end(signum, frame):
        raise SystemExit(0)   # the finally below ends every fork

    signal.signal(signal.SIGTERM, end)
    signal.signal(signal.SIGHUP, end)
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the parent decides; a terminal's Ctrl-C is the parent's
    try:
        while True:
            polling = any(fd is None for _, fd in live.values())
            for key, _ in sel.select(timeout=0.02 if polling else 1.0):
                if key.data == "request":
                    try:
                        data, fds, _, _ = socket.recv_fds(sock, MAX_MESSAGE, 2)
                    except OSError:
                        return 0
                    if not data:
                        return 0   # the parent is gone
                    _fork_one(sock, sel, json.loads(data), fds, live, interpret)
                else:
                    _reap(sock, sel, key.data, live, block=True)
            if polling:
                for pid in [p for p, (_, fd) in live.items() if fd is None]:
                    _reap(sock, sel, pid, live, block=False)
    finally:
        for pid, (_, pidfd) in list(live.items()):
            kill_pgid(pid)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
            if pidfd is not None:
                os.close(pidfd)


def warm_front_end() -> None:
    """Run Triton's compiler front end once on a kernel of ours (grader/speed/copy_kernel.py; nothing is executed), so
    that each fork's check of the learner's kernel (grader/watch/compile_check.py) finds MLIR's dialects and the backend
    already loaded: ~45 ms less per grade. Best effort; the thread check after it still guards the forks."""
    try:
        from grader.watch.compile_check import FrontEnd
        from grader.speed.copy_kernel import _copy_kernel
        FrontEnd("warm-up")._compile(_copy_kernel.fn, {"src_ptr": "*fp32", "dst_ptr": "*fp32", "n": "i32",
                                                       "BLOCK": "constexpr"}, {"BLOCK": 1024})
    except Exception:  # noqa: BLE001
        pass


def warm_cache_key() -> None:
    """Triton hashes its own source files (`triton_key`, ~0.4 s on the H200) the first time a process compiles a
    kernel or looks one up in its disk cache; hashed once here, every fork has it (functools.lru_cache). No CUDA,
    no thread. Best effort."""
    try:
        from triton.runtime.cache import triton_key
        triton_key()
    except Exception:  # noqa: BLE001
        pass


def _send(sock: socket.socket, msg: dict) -> None:
    with contextlib.suppress(OSError):
        sock.send(json.dumps(msg).encode())


def _fork_one(sock, sel, req: dict, fds: list[int], live: dict, interpret: bool) -> None:
    rid = req.get("id")
    argv = list(req.get("argv", []))
    device = argv[argv.index("--device") + 1] if "--device" in argv[:-1] else None
    threads = thread_count()
    problem = f"{threads} threads in the warm process" if threads != 1 else \
        None if (device == "cpu") == interpret else f"a {device} run sent to the wrong warm process"
    if problem:
        for fd in fds:
            os.close(fd)
        _send(sock, {"id": rid, "refused": problem})
        return
    sys.stdout.flush()
    sys.stderr.flush()
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the fork: never returns
        try:
            os.close(ready_r)
            os.setsid()
            os.write(ready_w, b"1")
            os.close(ready_w)
            keep = set(fds)
            inherited = [sock.fileno(), sel.fileno()] + [fd for _, fd in live.values() if fd is not None]
            for fd in inherited:
                if fd not in keep:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            become_child(req, fds)
        except BaseException:  # noqa: BLE001 - the parent sees no result file: a crash report with this output
            import traceback
            with contextlib.suppress(BaseException):
                traceback.print_exc()
                sys.stderr.flush()
        finally:
            os._exit(70)
    os.close(ready_w)
    os.read(ready_r, 1)   # setsid() done: the pid is a process group now
    os.close(ready_r)
    for fd in fds:
        os.close(fd)
    pidfd = None
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(pid)
            sel.register(pidfd, selectors.EVENT_READ, pid)
        except OSError:
            pidfd = None
    live[pid] = (rid, pidfd)
    _send(sock, {"id": rid, "started": pid})


def _reap(sock, sel, pid: int, live: dict, block: bool) -> None:
    try:
        done, status = os.waitpid(pid, 0 if block else os.WNOHANG)
    except ChildProcessError:
        done, status = pid, 0
    if done == 0:
        return
    rid, pidfd = live.pop(pid)
    if pidfd is not None:
        sel.unregister(pidfd)
        os.close(pidfd)
    _send(sock, {"id": rid, "exited": pid, "returncode": os.waitstatus_to_exitcode(status)})


def become_child(req: dict, fds: list[int]) -> None:
    """In the fork: make this process what a cold `python -m grader.run.child` would be, then grade (never returns)."""
    import io
    import random

    _die_with_parent()
    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD, signal.SIGUSR1):
        signal.signal(s, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)   # as Python sets it at start-up
    with contextlib.suppress(ValueError, OSError):
        signal.set_wakeup_fd(-1)
    log_fd, progress = fds[0], (fds[1] if req.get("progress") and len(fds) > 1 else None)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    os.close(log_fd)
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding=encoding,
                                                    errors="backslashreplace", write_through=True)
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding=encoding,
                                                    errors="backslashreplace", write_through=True)
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding=encoding)

    os.environ.clear()
    os.environ.update(req["env"])
    if progress is not None:
        os.environ["DRILL_PROGRESS_FD"] = str(progress)
    else:
        os.environ.pop("DRILL_PROGRESS_FD", None)
    sys.dont_write_bytecode = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
    os.chdir(req["cwd"])
    sys.path[0] = req["cwd"]                       # `python -m` puts the working folder first
    sys.argv = [os.path.join(os.path.dirname(__file__), "child.py")] + list(req["argv"])
    random.seed()                                  # a cold child would have drawn fresh seeds
    import numpy as np
    np.random.seed()

    from grader.run import child
    child.run(child.parse_args(req["argv"]), time.perf_counter())


def _die_with_parent() -> None:
    """PR_SET_PDEATHSIG: the fork gets SIGKILL when the warm process dies (Linux; elsewhere the socket's EOF and
    the parent's kill of each group do it)."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)   # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() == 1:   # the warm process died before prctl took effect
        os._exit(70)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m grader.run.worker")
    ap.add_argument("--fd", type=int, required=True, help="this end of the parent's socket")
    a = ap.parse_args(argv)
    sock = socket.socket(fileno=a.fd)
    code = 1
    try:
        code = serve(sock)
    finally:
        sock.close()
        os._exit(code)   # skip torch's and Triton's slow interpreter shutdown: there is nothing left to save


if __name__ == "__main__":
    sys.exit(main())
