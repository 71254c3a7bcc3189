"""`drill inductor` beside a file of several kernels (issue 21: a forward and its backward): every @triton.jit
function is read in file order, and Inductor's kernels are paired with them (coach/inductor/capture.py)."""
from __future__ import annotations

from pathlib import Path

from coach.inductor import capture as ind

ROOT = Path(__file__).resolve().parent.parent


def test_every_jit_function_in_file_order():
    found = ind.learner_kernel_sources((ROOT / "solutions" / "layernorm.py").read_text())
    assert [name for _, name, _ in found] == ["_layer_norm_fwd", "_layer_norm_bwd_dx_partial", "_layer_norm_bwd_dwdb"]
    assert all(text.lstrip().startswith("@triton.jit") for text, _, _ in found)
    assert [first for _, _, first in found] == sorted(first for _, _, first in found)
    assert ind.learner_kernel_source("def f():\n    pass\n") == ("", None, 0)
    assert ind.learner_kernel_sources("def (:") == []


def test_pairs_keep_order_and_put_the_last_beside_the_last():
    # Inductor fused forward + dx into one kernel and reduced dW/dB in a second; the learner wrote three kernels
    assert ind.pair_kernels(2, 3) == [(0, 0), (1, 2)]
    assert ind.pair_kernels(3, 3) == [(0, 0), (1, 1), (2, 2)]
    assert ind.pair_kernels(3, 2) == [(0, 0), (2, 1)]
    assert ind.pair_kernels(1, 3) == [(0, 2)]
    assert ind.pair_kernels(0, 3) == [] and ind.pair_kernels(2, 0) == []
