#!/usr/bin/env bash
# H200 check for the suite-time branch (benchmarks, not a test): the warm workers start with the extra warm imports
# (texts.yaml, torch's symbolic_shapes) on torch 2.11 / triton 3.6, neither initialises CUDA, grades through them
# pass on both devices, and grader/core/arrays.unique equals np.unique on this numpy.
#   cd REPO && export PYTHONPATH=$PWD && OUT=DIR bash benchmarks/h200_suite_worker.sh
set -u
export DRILL_SKIP_TIMING=1   # verdicts only: the speed gates have their own scripts
timeout 85 python - <<'PY'
import json, time
import numpy as np
from grader.core.arrays import unique, distinct_count
rng = np.random.default_rng(0)
for n in (0, 1, 7, 1000, 100000):
    a = rng.integers(0, max(1, n // 2), n)
    assert np.array_equal(unique(a), np.unique(a)) and distinct_count(a) == np.unique(a).size
print("arrays.unique == np.unique on numpy", np.__version__)
from grader.run import runner, worker
t0 = time.monotonic()
with worker.warm() as w:
    print("workers usable:", w.usable(), f"{time.monotonic() - t0:.1f} s")
    print(json.dumps(w.status(), indent=1))
    for f, dev in (("solutions/vector_add.py", "cuda"), ("solutions/layernorm.py", "cuda"), ("solutions/layernorm.py", "cpu")):
        t = time.monotonic()
        v = runner.grade(f, device=dev)
        print(f"{f} on {dev}: passed={v.passed} diagnosis={v.diagnosis} {time.monotonic() - t:.1f} s",
              {d: (i or {}).get("phases") for d, i in v.info.items()})
PY
echo "rc=$?"
