"""The compile labs (graph-breaks, custom-op) on one machine: torch's APIs they need, every shipped file graded with
its expected verdict and hole, the grade's seconds, and on CUDA whether Inductor's output code launches the kernel.

    PYTHONPATH=. python benchmarks/compiler_labs.py [--device cpu|cuda|auto] [--out FILE.json]

On the H200 (torch 2.11, triton 3.6) it proves the labs on the other torch version: both references pass, each
known-wrong file gets its category and hole on CUDA as on CPU, and Inductor's code contains add_relu_kernel.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

LABS = ("graph_breaks", "custom_op")
APIS = ("torch.library.triton_op", "torch.library.wrap_triton", "torch.library.opcheck",
        "torch.library.register_autograd", "torch.library.custom_op", "torch._dynamo.explain",
        "torch._dynamo.mark_dynamic", "torch._dynamo.maybe_mark_dynamic", "torch._inductor.utils.run_and_get_code",
        "torch._library.triton._is_interpreted_triton_kernel", "torch._library.triton.triton_ops_to_kernels",
        "torch._library.custom_ops.OPDEFS", "torch.export._trace.custom_triton_ops_decomposition_disabled")


def api_table() -> dict:
    code = ("import importlib, json, sys\nout = {}\nfor name in sys.argv[1:]:\n    mod, _, attr = name.rpartition('.')\n"
            "    try:\n        out[name] = hasattr(importlib.import_module(mod), attr)\n"
            "    except Exception as e:\n        out[name] = f'{type(e).__name__}: {e}'\n"
            "import torch, triton\nout['torch'] = torch.__version__\nout['triton'] = triton.__version__\n"
            "print(json.dumps(out))")
    r = subprocess.run([sys.executable, "-c", code, *APIS], capture_output=True, text=True)
    return json.loads(r.stdout.strip().splitlines()[-1]) if r.returncode == 0 else {"error": r.stderr[-800:]}


def import_floor() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import torch, triton"], check=True)
    return round(time.perf_counter() - t0, 2)


def files(references_only: bool = False):
    for lab in LABS:
        yield ROOT / "solutions" / f"{lab}.py", "pass", None
        if references_only:
            continue
        for path in sorted((ROOT / "tests" / "submissions").glob(f"*/{lab}_*.py")):
            text = path.read_text(encoding="utf-8")
            hole = re.search(r"^# hole: (\S+)", text, re.M)
            yield path, re.search(r"^# expect: (\S+)", text, re.M).group(1), hole.group(1) if hole else None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="auto")
    ap.add_argument("--out", default=None)
    ap.add_argument("--references", action="store_true", help="grade the two reference solutions only")
    a = ap.parse_args()
    from grader.run import runner

    report = {"apis": api_table(), "import_floor_s": import_floor(), "load": os.getloadavg(), "files": []}
    print(json.dumps(report["apis"], indent=1), f"\nimport torch, triton: {report['import_floor_s']} s; load average {report['load']}", flush=True)
    bad = 0
    for path, expected, hole in files(a.references):
        v = runner.grade(path, device=a.device)
        got = "pass" if v.passed else v.diagnosis
        ok = got == expected and (hole is None or v.hole == hole)
        bad += not ok
        c = v.info.get("compile") or {}
        ind = c.get("inductor") or {}
        row = {"file": str(path.relative_to(ROOT)), "expected": expected, "hole": hole, "got": got, "got_hole": v.hole,
               "line": v.line, "ok": ok, "device": v.device, "elapsed_s": v.elapsed_s,
               "compile_device": c.get("device"), "shim_missing": c.get("shim_missing"),
               "inductor_found": ind.get("found"), "inductor_error": ind.get("error"),
               "inductor_excerpt": ind.get("excerpt"), "detail": json.loads(json.dumps(v.detail, default=str))}
        report["files"].append(row)
        print(f"{'ok ' if ok else 'BAD'} {row['file']:58s} expected {expected}/{hole} got {got}/{v.hole} "
              f"line {v.line} {v.elapsed_s} s on {v.device}" + (f" inductor found {ind.get('found')}" if ind else "")
              + ("" if ok else f"\n    {json.dumps(row['detail'])[:700]}"), flush=True)
    if a.out:
        Path(a.out).write_text(json.dumps(report, indent=1))
    print(f"{len(report['files']) - bad}/{len(report['files'])} as expected")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
