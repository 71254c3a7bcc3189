"""The warm workers (the interpreter's and, with a GPU, the CUDA one) start with their optional imports
(torch._dynamo among them), stay single-threaded, and grade a triton_op file and a torch.compile file to the same
verdict, diagnosis and line as cold children (benchmark, not a test: without a GPU only the interpreter's row runs).

    cd CHECKOUT && PYTHONPATH=$PWD DRILL_HOME=$(mktemp -d) python benchmarks/warm_worker_check.py
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FILES = [("solutions/custom_op.py", "cuda"), ("tests/submissions/wrong/custom_op_kernel_unmasked_load.py", "cuda"),
         ("solutions/graph_breaks.py", "cuda"), ("solutions/vector_add.py", "cuda"), ("solutions/custom_op.py", "cpu")]


def graded(path: str, device: str, how: str) -> tuple:
    from grader.run import runner
    t = time.perf_counter()
    v = runner.grade(ROOT / path, device=device)
    print(f"{how} {path:<60} {device} {time.perf_counter() - t:.1f} s {v.passed} {v.diagnosis}", flush=True)
    return v.passed, v.diagnosis, v.line


def main() -> int:
    from grader.run import worker
    from grader.run.proc import nvidia_driver_present
    files = FILES if nvidia_driver_present() else [(f, d) for f, d in FILES if d == "cpu"]
    with worker.warm() as w:
        t = time.perf_counter()
        print("usable", w.usable(), f"{time.perf_counter() - t:.1f} s")
        print(json.dumps(w.status(), default=str)[:1500])
        warm = {(f, d): graded(f, d, "warm") for f, d in files}
    for f, d in (files[:3] if len(files) > 3 else files):
        print("  same as warm:", graded(f, d, "cold") == warm[(f, d)], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
