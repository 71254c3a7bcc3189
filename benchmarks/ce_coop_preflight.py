"""One cross-entropy candidate, checked on a GPU in a process of its own (benchmark helper, not a test): so that a
cooperative schedule that deadlocks (benchmarks/candidates/cross_entropy_coop.py waits for its sibling programs)
costs its own `timeout`, not the batch. Times nothing.

    PYTHONPATH=. timeout 45 python benchmarks/ce_coop_preflight.py FILE[:NAME=VALUE,...] --out DIR/NAME.json

Checks, in order (each printed as it finishes, so a hang shows where): benchmarks/cross_entropy.py's small cases
against float64 F.cross_entropy (30 % ignored, logits at scale 40, all ignored; V = 128256 at T = 16); then the full
(8192, 128256) bf16 step with 5 % ignored, twice on fresh copies: the loss against float32 F.cross_entropy summed
in row blocks, 512 rows' gradient (the first and last 128, 256 drawn) against float32 softmax - one_hot over
n_valid, the ignored rows' gradient exactly 0, and the two runs' losses and gradients bitwise equal (the combine
order is fixed, so a race would show as a difference). Also the launch plan (G, BLOCK, groups) when the module has
`_plan`. Writes one JSON object: {"spec", "ok", "stage", ...}.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from constants import load_module, parse_spec  # noqa: E402

SHAPE = (8192, 128256)
DEV = "cuda"  # --device cpu --shape 64,3001: a smoke test of this script under the interpreter


def full_check(fn, res: dict) -> None:
    import torch
    import torch.nn.functional as F
    t, v = SHAPE
    gen = torch.Generator(device=DEV).manual_seed(1)
    x = (torch.randn(SHAPE, device=DEV, generator=gen) * 2).to(torch.bfloat16)
    y = torch.randint(0, v, (t,), device=DEV, generator=gen)
    y[torch.rand(t, device=DEV, generator=gen) < 0.05] = -100
    n = int((y != -100).sum())
    ref = sum(float(F.cross_entropy(x[i:i + 512].float(), y[i:i + 512], ignore_index=-100, reduction="sum"))
              for i in range(0, t, 512)) / n
    rows = torch.cat([torch.arange(128), torch.arange(t - 128, t),
                      torch.randperm(t - 256, generator=torch.Generator().manual_seed(2))[:256] + 128]).to(DEV)
    xr = x[rows].float()
    want = torch.softmax(xr, dim=-1)
    yr = y[rows]
    keep = yr != -100
    want[keep, yr[keep]] -= 1.0
    want[~keep] = 0.0
    want /= n
    runs = []
    for k in range(2):
        work = x.clone().requires_grad_()
        t0 = time.perf_counter()
        loss = fn(work, y)
        loss.backward()
        if DEV == "cuda":
            torch.cuda.synchronize()
        res[f"full_run{k}_s"] = round(time.perf_counter() - t0, 3)
        g = work.grad
        runs.append((float(loss), g[rows].float().clone(), g))
        res["grad_in_place"] = g.data_ptr() == work.data_ptr()
        del work
    loss0, g0, full0 = runs[0]
    loss1, g1, full1 = runs[1]
    res["loss"], res["loss_ref_fp32"] = loss0, ref
    res["loss_rel_err"] = abs(loss0 - ref) / abs(ref)
    res["grad_rel_err"] = float((g0 - want).abs().max() / want.abs().max())
    res["ignored_rows_zero"] = bool((full0[y == -100] == 0).all())
    res["runs_bitwise_equal"] = loss0 == loss1 and bool(torch.equal(full0, full1))
    res["ok"] = (res["loss_rel_err"] <= 1e-2 and res["grad_rel_err"] <= 1e-2 and res["ignored_rows_zero"]
                 and res["runs_bitwise_equal"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python benchmarks/ce_coop_preflight.py")
    ap.add_argument("spec")
    ap.add_argument("--out", required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--shape", default=None, help="T,V (default 8192,128256)")
    a = ap.parse_args(argv)
    global DEV, SHAPE
    DEV = a.device
    if a.shape:
        SHAPE = tuple(int(s) for s in a.shape.split(","))
    if DEV == "cpu":
        import os
        os.environ["TRITON_INTERPRET"] = "1"
    import torch
    path, consts = parse_spec(a.spec)
    mod = load_module(Path(path), "preflight_candidate")
    for k, val in consts.items():
        if not hasattr(mod, k):
            raise KeyError(f"{path} has no constant {k}")
        setattr(mod, k, val)
    res = {"spec": a.spec, "ok": False, "stage": "start"}
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)

    def save(stage):
        res["stage"] = stage
        out.write_text(json.dumps(res, indent=1))
        print(f"[{a.spec}] {stage}: {json.dumps(res)}", flush=True)

    if hasattr(mod, "_plan"):
        res["plan_G_BLOCK_groups"] = list(mod._plan(torch.device(DEV), *SHAPE))
        if DEV == "cuda":
            res["sms"] = torch.cuda.get_device_properties(0).multi_processor_count
    save("small checks")
    from cross_entropy import small_checks
    t0 = time.perf_counter()
    small = small_checks(mod.cross_entropy, device=DEV)
    res["small_checks"] = small or "ok"
    res["small_s"] = round(time.perf_counter() - t0, 2)
    if small:
        save("small checks failed")
        return 1
    save("full size")
    full_check(mod.cross_entropy, res)
    save("done")
    return 0 if res["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
