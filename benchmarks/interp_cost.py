"""Calibrate grader.run.budget's counted clock: seconds per interpreted program and per interpreter operation.

    python benchmarks/interp_cost.py

Grades nothing: runs each drill's reference solution on its interpreter sizes under TRITON_INTERPRET=1 with the
VirtualClock's counters installed, times every call (wall clock, quiet machine), and fits
seconds = PROGRAM_S * programs + OP_S * ops by least squares. Prints one JSON line per call and the fit, with the
import floor (`import torch, triton`) measured in the same run.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import torch, triton"], check=True)
    floor = time.perf_counter() - t0
    os.environ["TRITON_INTERPRET"] = "1"
    import importlib.util

    import numpy as np
    import torch

    from drills import get_spec, names
    from grader.run.budget import VirtualClock
    from grader.watch.interp_speed import install as speedups

    speedups()
    clock = VirtualClock().install()
    rows = []
    for name in names():
        spec = get_spec(name)
        mod_spec = importlib.util.spec_from_file_location(f"ref_{name.replace('-', '_')}", spec.solution_path)
        module = importlib.util.module_from_spec(mod_spec)
        mod_spec.loader.exec_module(module)
        entry = getattr(module, spec.entry)
        for size in spec.sizes:
            inputs = spec.make_inputs(size, torch.Generator().manual_seed(0))
            p0, o0, w0 = clock.programs, clock.ops, time.perf_counter()
            try:
                entry(*inputs, **spec.kwargs)
            except Exception as e:  # noqa: BLE001 - a drill whose reference needs a GPU feature: left out
                print(json.dumps({"drill": name, "size": size, "skipped": repr(e)[:100]}))
                continue
            wall = time.perf_counter() - w0
            row = {"drill": name, "size": size, "programs": clock.programs - p0, "ops": clock.ops - o0,
                   "wall_s": round(wall, 4)}
            rows.append(row)
            print(json.dumps(row))
    a = np.array([[r["programs"], r["ops"]] for r in rows], dtype=float)
    b = np.array([r["wall_s"] for r in rows])
    weights = 1 / np.maximum(b, 0.01)  # relative error matters: small calls count as much as large ones
    (program_s, op_s), *_ = np.linalg.lstsq(a * weights[:, None], b * weights, rcond=None)
    predicted = a @ np.array([program_s, op_s])
    ratio = predicted / np.maximum(b, 1e-4)
    print(json.dumps({"PROGRAM_S": float(program_s), "OP_S": float(op_s), "calls": len(rows),
                      "predicted/measured min": round(float(ratio.min()), 2),
                      "max": round(float(ratio.max()), 2), "import_floor_s": round(floor, 2)}))


if __name__ == "__main__":
    main()
