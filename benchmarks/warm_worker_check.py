"""The warm workers (the interpreter's and, with a GPU, the CUDA one) start with their optional imports
(torch._dynamo among them), stay single-threaded, and grade a triton_op file and a torch.compile file to the same
verdict, diagnosis and line as cold children (benchmark, not a test: the CUDA half needs a GPU).

    cd CHECKOUT && PYTHONPATH=$PWD DRILL_HOME=$(mktemp -d) python benchmarks/warm_worker_check.py
"""
import json, os, sys, time
sys.path.insert(0, os.getcwd())
from grader.run import worker, runner
files = [("solutions/custom_op.py", "cuda"), ("tests/submissions/wrong/custom_op_kernel_unmasked_load.py", "cuda"),
         ("solutions/graph_breaks.py", "cuda"), ("solutions/vector_add.py", "cuda"), ("solutions/custom_op.py", "cpu")]
out = {}
with worker.warm() as w:
    t = time.perf_counter(); print("usable", w.usable(), "%.1f s" % (time.perf_counter() - t))
    print(json.dumps(w.status(), default=str)[:1500])
    for f, d in files:
        t = time.perf_counter(); v = runner.grade(f, device=d)
        out[(f, d, "warm")] = (v.passed, v.diagnosis, v.line)
        print("warm %-60s %s %.1f s %s %s" % (f, d, time.perf_counter() - t, v.passed, v.diagnosis), flush=True)
for f, d in files[:3]:
    t = time.perf_counter(); v = runner.grade(f, device=d)
    out[(f, d, "cold")] = (v.passed, v.diagnosis, v.line)
    print("cold %-60s %s %.1f s %s %s same=%s" % (f, d, time.perf_counter() - t, v.passed, v.diagnosis,
                                                 out[(f, d, "warm")] == out[(f, d, "cold")]), flush=True)
