"""Why the cross-entropy reference takes ~2330 µs in the speed gate but ~1505 µs in benchmarks/cross_entropy.py
(benchmark, not a test; needs CUDA; ~10 s).

    PYTHONPATH=. python benchmarks/ce_gate_gap.py

The two differ in what they time: the gate calls y.backward(dy) with dy != 1 on inputs with ~30 % of the rows
ignored (the spec's make_inputs); the benchmark calls loss.backward() (dy = 1) with 5 % ignored. The reference writes
(softmax - one_hot) / n_valid over the logits in the forward and, only when dy != 1, scales it in a second kernel
(one more read and write of T x V). Byte model (bf16, T x V = 8192 x 128256 = 2.10 GB per pass): forward = valid
rows x 3 passes + ignored rows x 1 (zeros written, nothing read), backward = 2 passes when dy != 1, else 0.
Per (ignored share, dy): µs (median of 3 do_bench medians), the model's GB and the implied TB/s, and whether
logits.grad is the logits' own storage after the step (if autograd's AccumulateGrad had cloned an aliasing gradient
it would not be, and one more 4.2 GB copy would be in the time).
"""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))


def main() -> int:
    import torch
    from triton.testing import do_bench

    from constants import load_module
    if not torch.cuda.is_available():
        print("benchmarks/ce_gate_gap.py needs a CUDA GPU")
        return 2
    ce = load_module(ROOT / "solutions" / "cross_entropy.py", "ce_ref").cross_entropy
    t, v = 8192, 128256
    g = torch.Generator(device="cuda").manual_seed(0)
    base = (torch.randn(t, v, device="cuda", generator=g) * 2).to(torch.bfloat16)
    pass_gb = t * v * 2 / 1e9
    print(f"{torch.cuda.get_device_name()} torch {torch.__version__}: the reference at ({t}, {v}) bf16", flush=True)
    for ignored in (0.05, 0.3):
        y = torch.randint(0, v, (t,), device="cuda", generator=g)
        y[torch.rand(t, device="cuda", generator=g) < ignored] = -100
        share = float((y == -100).float().mean())
        for dy_value in (1.0, 0.7):
            x = base.clone().requires_grad_()
            dy = torch.tensor(dy_value, device="cuda", dtype=torch.bfloat16)

            def step():
                x.grad = None
                ce(x, y).backward(dy)
            step()
            alias = x.grad is not None and x.grad.data_ptr() == x.data_ptr()
            us = statistics.median(1000 * do_bench(step, warmup=25, rep=100) for _ in range(3))
            gb = pass_gb * ((1 - share) * 3 + share + (2 if dy_value != 1.0 else 0))
            print(f"  ignored {share:.3f}, dy {dy_value}: {us:7.0f} µs, model {gb:5.2f} GB -> {gb / us * 1e3:5.2f} TB/s, "
                  f"grad is the logits' storage: {alias}", flush=True)
            del x
    return 0


if __name__ == "__main__":
    sys.exit(main())
