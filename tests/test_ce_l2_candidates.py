"""Issue 21's cross-entropy L2 candidates (benchmarks/candidates/cross_entropy_last_arrival.py, cross_entropy_hints.py)
and the checks benchmarks/h200_ce_l2.sh runs before timing them: each schedule the H200 batch times computes
F.cross_entropy's loss and gradient under Triton's interpreter (ignored rows, several chunks per row, an all-ignored
batch, dy != 1), the helper path of the LAG variant (which the interpreter's one-program-at-a-time order never takes
on its own) is forced and checked, a claim won on the wrong value (chunks never written) is caught, and
benchmarks/cross_entropy.py's
pre-timing check refuses a wrong candidate.

The kernels run in one subprocess (TRITON_INTERPRET must be set before triton is imported)."""
from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import interp_script
import pytest

ROOT = Path(__file__).resolve().parent.parent
LA = ROOT / "benchmarks" / "candidates" / "cross_entropy_last_arrival.py"
LAST_CLAIM = 'if tl.atomic_cas(Sync + row * (C + 1) + 1 + k, 0, 1, sem="acq_rel", scope="gpu") == 0:'


def variants(tmp: Path) -> dict:
    """Text edits of the LAG candidate: the last arrival claims nothing (helpers do every chunk, right in the
    interpreter's order), or a claim is 'won' on the wrong old value (chunks never written)."""
    text = LA.read_text()
    assert text.count(LAST_CLAIM) == 1
    out = {}
    for name, new in (("helpers_only", "if k < 0:"), ("claim_wrong_value", LAST_CLAIM.replace("== 0:", "== 2:"))):
        p = tmp / f"ce_{name}.py"
        p.write_text(text.replace(LAST_CLAIM, new))
        out[name] = p
    return out


SCRIPT = r'''
import json
from pathlib import Path
import torch
import torch.nn.functional as F
from benchmarks.constants import load_with_constants
ROOT = Path(sys.argv[1])
C = ROOT / "benchmarks" / "candidates"
cases = json.loads(sys.argv[2])
out = {}
for name, (path, consts) in cases.items():
    fn = load_with_constants(Path(path), "cross_entropy", consts)
    worst = 0.0
    for t, v, ignored in ((7, 3001, 0.3), (5, 1000, 1.0), (3, 2500, 0.0)):
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
        if ignored == 1.0:
            worst = max(worst, 0.0 if loss != loss else float("inf"))
        else:
            worst = max(worst, abs(loss - ref) / abs(ref))
        worst = max(worst, float((mine.grad.double() - ref_in.grad).abs().max()))
    out[name] = worst
    stats = fn.__globals__.get("STATS", {}).get("sync")
    if stats is not None:  # the last call (3, 2500): who wrote each chunk's gradient
        out[name + " claims"] = sorted(set(stats[:, 1:].reshape(-1).tolist()))
from benchmarks import cross_entropy as bench
bench.SMALL_CASES = ((7, 3001, 0.3, 3.0), (4, 3001, 0.0, 40.0), (5, 3001, 1.0, 3.0))  # interpreter-sized
for name in ("LAG 2", "claim won on the wrong value"):
    path, consts = cases[name]
    out["small_checks " + name] = bench.small_checks(load_with_constants(Path(path), "cross_entropy", consts), "cpu")
print("RESULT " + json.dumps(out))
'''


@functools.lru_cache(maxsize=1)
def results(tmp: str) -> dict:
    v = variants(Path(tmp))
    la, hints = str(LA), str(ROOT / "benchmarks" / "candidates" / "cross_entropy_hints.py")
    cases = {
        "last arrival, 3 chunks": (la, {"CHUNK": 1024, "LAG": 0}),
        "last arrival, one chunk": (la, {"CHUNK": 8192, "LAG": 0, "EVICT": True}),
        "LAG 2": (la, {"CHUNK": 512, "LAG": 2}),
        "helpers only, LAG 1": (str(v["helpers_only"]), {"CHUNK": 1024, "LAG": 1}),
        "helpers only, LAG 4, evict": (str(v["helpers_only"]), {"CHUNK": 512, "LAG": 4, "EVICT": True}),
        "claim won on the wrong value": (str(v["claim_wrong_value"]), {"CHUNK": 1024, "LAG": 2}),
        "hints reverse evict": (hints, {"BLOCK_V": 1024, "REVERSE": True, "EVICT": True}),
        "hints reverse": (hints, {"BLOCK_V": 512, "REVERSE": True}),
        "hints keep 2, stages 2": (hints, {"BLOCK_V": 512, "REVERSE": True, "EVICT": True, "KEEP": 2, "STAGES": 2}),
        "hints keep more than the row": (hints, {"BLOCK_V": 1024, "EVICT": True, "KEEP": 9}),
    }
    return interp_script.run(SCRIPT, json.dumps(cases), timeout=900)


@pytest.fixture(scope="module")
def res(tmp_path_factory):
    return results(str(tmp_path_factory.mktemp("ce_l2")))


@pytest.mark.parametrize("case", ["last arrival, 3 chunks", "last arrival, one chunk", "LAG 2", "helpers only, LAG 1",
                                  "helpers only, LAG 4, evict", "hints reverse evict", "hints reverse",
                                  "hints keep 2, stages 2", "hints keep more than the row"])
def test_each_timed_schedule_matches_float64_cross_entropy(res, case):
    """Loss and gradient (dy = 1.5) within float32's rounding; the all-ignored batch gives NaN."""
    assert res[case] < 1e-5


def test_who_wrote_the_gradient_is_recorded(res):
    """In the interpreter's order the row's last arrival claims every chunk (1); with its claims taken away the
    helpers of row r + LAG write them all (2); no chunk of a valid row is left unclaimed (0)."""
    assert res["LAG 2 claims"] == [1]
    assert res["helpers only, LAG 1 claims"] == [2]


def test_a_claim_won_on_the_wrong_value_leaves_chunks_unwritten(res):
    assert res["claim won on the wrong value"] > 1e-2


def test_the_benchmark_refuses_to_time_a_wrong_candidate(res):
    """benchmarks/cross_entropy.py's small cases (bf16 logits against float64) before any timing."""
    assert res["small_checks LAG 2"] is None
    assert "(7, 3001)" in res["small_checks claim won on the wrong value"]


def test_the_batch_times_only_schedules_that_compile_here():
    """Every candidate h200_ce_l2*.sh names exists with those constants (a typo would cost the batch's row)."""
    text = "".join(p.read_text() for p in sorted((ROOT / "benchmarks").glob("h200_ce_l2*.sh")))
    from benchmarks.constants import load_module
    la = load_module(LA, "la_names")
    hints = load_module(ROOT / "benchmarks" / "candidates" / "cross_entropy_hints.py", "hint_names")
    specs = re.findall(r"\$(LA|H):([\w=,]+)", text)
    assert len(specs) >= 20
    for which, spec in specs:
        mod = la if which == "LA" else hints
        for kv in spec.split(","):
            assert hasattr(mod, kv.split("=")[0]), (which, kv)
