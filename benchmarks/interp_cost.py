"""Calibrate grader.run.budget's counted clock: seconds per interpreted program, operation, element and dot FMA.

    python benchmarks/interp_cost.py

Grades (CPU child, as `drill grade` does) every drill's reference solution, plus the vector-add and softmax
references with small blocks (many programs, small tiles: the per-program cost), reads each call's counted work
(`counted` in the child's result) and its CPU time (on a quiet machine, its wall time; CPU time also holds on a
loaded one), and fits seconds = sum(COSTS[k] * count[k]) by non-negative
least squares, weighted so small and large calls count alike. Prints the fit, how well it predicts, and the import
floor (`import torch, triton`) measured in the same run.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

VARIANTS = (("vector-add", "BLOCK_SIZE=1024", "BLOCK_SIZE=32"), ("vector-add", "BLOCK_SIZE=1024", "BLOCK_SIZE=128"),
            ("gelu", "BLOCK_SIZE=1024", "BLOCK_SIZE=64"))


def nonnegative_lstsq(a, b):
    """Least squares with every coefficient >= 0: drop the most negative one and refit until none is."""
    import numpy as np

    keep = list(range(a.shape[1]))
    while True:
        sol, *_ = np.linalg.lstsq(a[:, keep], b, rcond=None)
        if (sol >= 0).all() or len(keep) == 1:
            fit = np.zeros(a.shape[1])
            fit[keep] = np.maximum(sol, 0)
            return fit
        keep.pop(int(np.argmin(sol)))


def child_calls(path: Path, drill: str, workdir: str) -> list[dict]:
    out = Path(workdir) / "result.json"
    subprocess.run([sys.executable, "-m", "grader.run.child", "--file", str(path), "--drill", drill, "--device", "cpu",
                    "--out", str(out), "--timeout", "600"], cwd=str(ROOT), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return json.loads(out.read_text())["calls"]


def main() -> None:
    import numpy as np

    from drills import get_spec, names
    from grader.run.budget import COSTS

    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import torch, triton"], check=True)
    floor = time.perf_counter() - t0
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        files = [(n, get_spec(n).solution_path) for n in names()]
        for drill, old, new in VARIANTS:
            text = get_spec(drill).solution_path.read_text()
            if old in text:
                path = Path(tmp) / f"{drill}_{new.split('=')[1]}.py".replace("-", "_")
                path.write_text(text.replace(old, new))
                files.append((drill, path))
        for drill, path in files:
            for c in child_calls(path, drill, tmp):
                if c.get("counted") and c.get("cpu_s") and c.get("call") == 1:  # call 0 pays the first launch
                    rows.append({"drill": drill, "file": path.name, "size": c["size"], **c["counted"],
                                 "cpu_s": c["cpu_s"], "wall_s": c["wall_s"]})
    a = np.array([[r[k] for k in COSTS] for r in rows], dtype=float)
    b = np.array([r["cpu_s"] for r in rows])  # CPU time: what a quiet machine's wall clock shows, whatever the load
    weights = 1 / np.maximum(b, 0.02)
    fit = nonnegative_lstsq(a * weights[:, None], b * weights)
    ratio = (a @ fit) / np.maximum(b, 1e-4)
    big = b >= 0.1
    if not big.any():
        big = b >= 0
    for r, q in zip(rows, ratio):
        print(json.dumps({**r, "predicted/measured": round(float(q), 2)}))
    print(json.dumps({"COSTS": dict(zip(COSTS, map(float, fit))), "calls": len(rows),
                      "ratio (calls >= 0.1 s) min/median/max": [round(float(f(ratio[big])), 2)
                                                                 for f in (np.min, np.median, np.max)],
                      "import_floor_s": round(floor, 2)}))


if __name__ == "__main__":
    main()
