"""How long a learner waits for a verdict: a cold `drill grade`, and a re-grade in `drill grade --watch` measured
from the save to the verdict on screen. Prints a table and writes JSON with the machine it ran on.

    PYTHONPATH=. python benchmarks/latency.py                      # CPU: Triton's interpreter (quiet machine!)
    PYTHONPATH=. python benchmarks/latency.py --device cuda        # the H200
    PYTHONPATH=. python benchmarks/latency.py --suite              # also time the README's test command

Every figure is a real process, run as a learner runs it: `python cli.py grade FILE` for the cold grade (process
start to exit), and `python cli.py grade FILE --watch` in a pseudo-terminal (a pipe without pexpect) for the re-grade (the file is saved with
a new comment line, and the clock stops when the PASS/FAIL line appears). The load average is recorded beside
every figure: on a shared 2-core machine other work moves these numbers by 2x, so a figure measured under load is
marked as such.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

VERDICT = re.compile(r"\b(PASS|FAIL)\b")
QUIET_LOAD = 0.5   # load average (1 min) per core above which a CPU figure is marked "under load"


def machine() -> dict:
    cpu = ""
    try:
        cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo", encoding="utf-8")
                    if ln.startswith("model name")), "")
    except OSError:
        pass
    info = {"host": platform.node(), "cpu": cpu or platform.processor(), "cores": os.cpu_count(),
            "python": platform.python_version()}
    out = subprocess.run([sys.executable, "-c", "import torch, triton; print(torch.__version__, triton.__version__)"],
                         capture_output=True, text=True)
    if out.returncode == 0:
        info["torch"], info["triton"] = out.stdout.split()
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                         text=True) if _which("nvidia-smi") else None
    if gpu is not None and gpu.returncode == 0:
        info["gpu"] = gpu.stdout.strip().splitlines()[0]
    return info


def _which(name: str) -> bool:
    import shutil
    return shutil.which(name) is not None


def load() -> float:
    return round(os.getloadavg()[0], 2)


def env_for(home: Path) -> dict:
    return dict(os.environ, DRILL_HOME=str(home), NO_COLOR="1", DRILL_LANG="en", TERM="xterm",
                PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def import_floor(runs: int, env: dict) -> dict:
    """`python -c "import torch, triton"`, whole process: no fresh-process grade can be faster than this."""
    rows = []
    for _ in range(runs):
        before = load()
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import torch, triton"], env=env, capture_output=True, timeout=300,
                       check=True)
        rows.append({"wall_s": round(time.perf_counter() - t0, 3), "load_before": before, "load_after": load()})
    return summary(rows)


def cold(file: Path, device: str, runs: int, env: dict) -> dict:
    """`drill grade FILE --json`, whole process; the child's phases from its JSON."""
    rows = []
    for _ in range(runs):
        before = load()
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, str(ROOT / "cli.py"), "grade", str(file), "--device", device, "--json"],
                             cwd=str(file.parent), env=env, capture_output=True, text=True, timeout=600)
        wall = time.perf_counter() - t0
        data = json.loads(out.stdout)
        info = data.get("info") or {}
        rows.append({"wall_s": round(wall, 3), "passed": data.get("passed"), "grade_s": data.get("elapsed_s"),
                     "children": {d: {"elapsed_s": i.get("elapsed_s"), "phases": i.get("phases")}
                                  for d, i in info.items()},
                     "load_before": before, "load_after": load()})
    return summary(rows)


class _Screen:
    """What `drill grade --watch` prints, read as it comes: in a pseudo-terminal (pexpect) when installed, else
    through a pipe (the watch then prints plain text; the timing is the same)."""

    def __init__(self, cmd: list[str], cwd: Path, env: dict):
        try:
            import pexpect
            self.child = pexpect.spawn(cmd[0], cmd[1:], cwd=str(cwd), env=env, encoding="utf-8", timeout=300,
                                       dimensions=(200, 120))
            self.pipe = None
        except ImportError:
            import queue
            import threading
            self.child = None
            self.pipe = subprocess.Popen(cmd, cwd=str(cwd), env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.STDOUT, text=True, bufsize=1)
            self.lines: queue.Queue = queue.Queue()
            threading.Thread(target=lambda: [self.lines.put(ln) for ln in self.pipe.stdout], daemon=True).start()

    def expect(self, pattern) -> re.Match:
        regex = re.compile(pattern) if isinstance(pattern, str) else pattern
        if self.child is not None:
            self.child.expect(regex)
            return self.child.match
        while True:
            m = regex.search(self.lines.get(timeout=300))
            if m:
                return m

    def close(self) -> None:
        if self.child is not None:
            self.child.sendintr()
            try:
                self.child.expect(__import__("pexpect").EOF, timeout=30)
            finally:
                self.child.close(force=True)
        else:
            self.pipe.send_signal(signal.SIGINT)
            try:
                self.pipe.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.pipe.kill()


def warm(file: Path, device: str, saves: int, env: dict) -> dict:
    """`drill grade FILE --watch`: the first grade, then `saves` saves, each timed from the save to the verdict."""
    text = file.read_text(encoding="utf-8")
    screen = _Screen([sys.executable, str(ROOT / "cli.py"), "grade", str(file), "--watch", "--device", device],
                     file.parent, env)
    rows = []
    try:
        t0 = time.perf_counter()
        screen.expect(VERDICT)
        first = time.perf_counter() - t0
        screen.expect("graded in")
        for i in range(saves):
            time.sleep(1.0)  # let the screen settle; the worker is idle
            before = load()
            file.write_text(text + f"\n# save {i}\n", encoding="utf-8")
            t0 = time.perf_counter()
            passed = screen.expect(VERDICT).group(1) == "PASS"
            verdict_s = time.perf_counter() - t0
            grade_s = float(screen.expect(r"graded in ([\d.]+) s").group(1))
            rows.append({"wall_s": round(verdict_s, 3), "passed": passed, "grade_s": grade_s,
                         "load_before": before, "load_after": load()})
    finally:
        screen.close()
        file.write_text(text, encoding="utf-8")
    result = summary(rows)
    result["first_grade_s"] = round(first, 3)
    return result


def summary(rows: list[dict]) -> dict:
    walls = [r["wall_s"] for r in rows]
    loads = [r["load_before"] for r in rows] + [r["load_after"] for r in rows]
    return {"median_s": round(statistics.median(walls), 3), "min_s": min(walls), "max_s": max(walls),
            "runs": rows, "load_max": max(loads), "quiet": max(loads) <= QUIET_LOAD * (os.cpu_count() or 1)}


def suite(env: dict) -> dict:
    before = load()
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "pytest", "-q"], cwd=str(ROOT), env=env, capture_output=True,
                         text=True)
    wall = time.perf_counter() - t0
    tail = out.stdout.strip().splitlines()[-1:] or [""]
    return {"wall_s": round(wall, 1), "returncode": out.returncode, "summary": tail[0], "load_before": before,
            "load_after": load()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--file", type=Path, default=ROOT / "solutions" / "vector_add.py",
                    help="the submission to grade (default: the vector-add reference)")
    ap.add_argument("--runs", type=int, default=5, help="cold grades, and saves in watch mode (median of these)")
    ap.add_argument("--suite", action="store_true", help="also time `python -m pytest -q` (minutes)")
    ap.add_argument("--out", type=Path, default=None, help="write the JSON here")
    a = ap.parse_args(argv)

    result = {"machine": machine(), "device": a.device, "file": str(a.file), "date": time.strftime("%Y-%m-%d %H:%M"),
              "uptime_load": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="drill-latency-") as tmp:
        tmp = Path(tmp)
        env = env_for(tmp / "home")
        target = tmp / a.file.name
        target.write_text(a.file.read_text(encoding="utf-8"), encoding="utf-8")
        result["import_floor"] = import_floor(a.runs, env)
        print_row('import floor: python -c "import torch, triton"', result["import_floor"])
        result["cold"] = cold(target, a.device, a.runs, env)
        print_row("cold drill grade (process start to exit)", result["cold"])
        result["warm"] = warm(target, a.device, a.runs, env)
        print_row("watch: save -> verdict on screen", result["warm"])
        print(f"  (the watch's first grade, worker start included: {result['warm']['first_grade_s']:.2f} s)")
        if a.suite:
            result["suite"] = suite(env_for(tmp / "suite-home"))
            s = result["suite"]
            print(f"{'pytest -q (the README test command)':44s} {s['wall_s']:7.1f} s   load {s['load_before']}"
                  f"->{s['load_after']}   {s['summary']}")
    text = json.dumps(result, indent=1)
    if a.out:
        a.out.write_text(text, encoding="utf-8")
        print(f"wrote {a.out}")
    print(f"machine: {result['machine']}")
    return 0


def print_row(label: str, r: dict) -> None:
    flag = "" if r["quiet"] else "   (under load: not a quiet-machine figure)"
    print(f"{label:44s} median {r['median_s']:.2f} s  (min {r['min_s']:.2f}, max {r['max_s']:.2f}, "
          f"n={len(r['runs'])})   load ≤ {r['load_max']}{flag}")


if __name__ == "__main__":
    sys.exit(main())
