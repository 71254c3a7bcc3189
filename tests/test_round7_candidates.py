"""Round 7's benchmark candidates (docs/training.md "Round 5", docs/serving.md "Round 7") compute what they claim
under Triton's interpreter, and their checks can fail:
- benchmarks/candidates/cross_entropy_pipelined.py: F.cross_entropy's loss and gradient (float64 reference, dy 1.5,
  ignored rows, an all-ignored batch), with few programs so each walks several rows and its extra gradient-only
  step runs; the same file without that extra step leaves the last rows' gradients unwritten, and is caught.
- benchmarks/candidates/quant_matmul_ptx.py with FIXUP (the by-bits unpack: the interpreter cannot run PTX): two
  calls in a row each within the drill's tolerance, the workspace and counters zero after; the same file without
  the reset is caught on its second call.
The kernels run in one subprocess (TRITON_INTERPRET must be set before triton is imported)."""
from __future__ import annotations

import json
from pathlib import Path

import interp_script
import pytest

ROOT = Path(__file__).resolve().parent.parent
CE = ROOT / "benchmarks" / "candidates" / "cross_entropy_pipelined.py"
QUANT = ROOT / "benchmarks" / "candidates" / "quant_matmul_ptx.py"
CE_EXTRA_STEP = "for step in range(0, tl.cdiv(T - pid, NPROG) + 1):"
QUANT_RESET = "tl.store(ws_ptrs, tl.zeros_like(acc), mask=c_mask)  # zero again for the next call"

SCRIPT = r'''
import json
from pathlib import Path
import torch
import torch.nn.functional as F
from benchmarks.constants import load_module, load_with_constants
from benchmarks.quant_r6 import within_tolerance
from benchmarks.serving_sweep import quant_inputs
cases = json.loads(sys.argv[2])
out = {}
for name, (path, consts) in cases["ce"].items():
    fn = load_with_constants(Path(path), "cross_entropy", consts)
    worst = 0.0
    for t, v, ignored in ((7, 3001, 0.3), (5, 1000, 1.0), (4, 2500, 0.0)):
        g = torch.Generator().manual_seed(t)
        x = torch.randn(t, v, generator=g, dtype=torch.float64).float() * 3
        y = torch.randint(0, v, (t,), generator=g)
        y[torch.rand(t, generator=g) < ignored] = -100
        if ignored == 1.0:
            y[:] = -100
        ref_in = x.double().requires_grad_()
        ref = F.cross_entropy(ref_in, y)
        (ref * 1.5).backward()
        mine = x.clone().requires_grad_()
        loss = fn(mine, y)
        (loss * 1.5).backward()
        loss, ref = float(loss.detach()), float(ref.detach())
        worst = max(worst, (0.0 if loss != loss else float("inf")) if ignored == 1.0 else abs(loss - ref) / abs(ref))
        worst = max(worst, float((mine.grad.double() - ref_in.grad).abs().max()))
    out[name] = worst
for name, (path, cfg) in cases["quant"].items():
    mod = load_module(Path(path), "q_" + name.replace(" ", "_"))
    mod.CONFIG = dict(mod.CONFIG, **cfg)
    errs = []
    for M, N, K in ((1, 100, 512), (5, 37, 512)):
        a, w, s, w_deq = quant_inputs(M, N, K, "cpu", seed=M + N)
        for _ in range(2):
            errs.append(within_tolerance(mod.matmul_w4a16(a, w, s, 128), a, w_deq)[1])
    left = max(float(t.abs().max()) for pair in mod._WORKSPACE.values() for t in pair)
    out[name] = {"worst_over_tolerance": max(errs), "left_in_workspace": left}
print("RESULT " + json.dumps(out))
'''


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("round7")
    ce_text, quant_text = CE.read_text(), QUANT.read_text()
    assert ce_text.count(CE_EXTRA_STEP) == 1 and quant_text.count(QUANT_RESET) == 1
    no_step = tmp / "ce_no_extra_step.py"
    no_step.write_text(ce_text.replace(CE_EXTRA_STEP, CE_EXTRA_STEP.replace(" + 1):", "):")))
    no_reset = tmp / "quant_no_reset.py"
    no_reset.write_text(quant_text.replace(QUANT_RESET, "pass"))
    fix = {"UNPACK": 0, "FIXUP": True, "BLOCK_K": 128}
    cases = {
        "ce": {"default": (str(CE), {"BLOCK_V": 1024}),
               "forward re-read, no hints": (str(CE), {"BLOCK_V": 1024, "REVERSE": False, "EVICT": False}),
               "stages 3, one block a row": (str(CE), {"BLOCK_V": 4096, "STAGES": 3}),
               "no extra step": (str(no_step), {"BLOCK_V": 1024})},
        "quant": {"fixup split 2": (str(QUANT), {**fix, "SPLIT_K": 2}),
                  "fixup split 4": (str(QUANT), {**fix, "SPLIT_K": 4, "BLOCK_K": 64}),
                  "no reset": (str(no_reset), {**fix, "SPLIT_K": 4, "BLOCK_K": 64})},
    }
    return interp_script.run(SCRIPT, json.dumps(cases))


def test_pipelined_cross_entropy_matches_float64_and_a_missing_last_step_is_caught(results):
    r = results
    for name in ("default", "forward re-read, no hints", "stages 3, one block a row"):
        assert r[name] <= 1e-5, (name, r[name])
    assert r["no extra step"] > 1e-3  # the last rows' gradients were never written


def test_self_zeroing_split_k_stays_right_on_the_second_call_and_a_missing_reset_is_caught(results):
    r = results
    for name in ("fixup split 2", "fixup split 4"):
        assert r[name]["worst_over_tolerance"] <= 1.0 and r[name]["left_in_workspace"] == 0.0, (name, r[name])
    assert r["no reset"]["worst_over_tolerance"] > 1.0 and r["no reset"]["left_in_workspace"] > 0.0
