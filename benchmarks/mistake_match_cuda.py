"""How close a planted mistake's CUDA output is to the mistake's own model, at the CUDA-only sizes (benchmark, not a
test). Session 5's H200 run graded attention without its 1/sqrt(D) scale: the mistake was named on every size but
(2, 4, 1000, 128) and (1, 2, 2051, 64), which read `wrong-values`. This prints, per size, the share of elements
within twice the tolerance of the model (the grader's `matches` needs 0.999) and the largest errors against the
model and against the truth.

    PYTHONPATH=. python benchmarks/mistake_match_cuda.py FILE --drill attention --mistake "no 1/sqrt(D) scale"
"""
import argparse
import importlib.util

import torch

import drills
from grader.judge.evaluate import _close


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--drill", default="attention")
    ap.add_argument("--mistake", default="no 1/sqrt(D) scale")
    a = ap.parse_args()
    spec = drills.get_spec(a.drill)
    m = next(x for x in spec.mistakes if x.name == a.mistake)
    mod_spec = importlib.util.spec_from_file_location("learner", a.file)
    mod = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(mod)
    fn = getattr(mod, spec.entry)
    rtol, atol = spec.tolerance_for("float16")
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    sizes = list(spec.cuda_sizes) + [tuple(s) for s in spec.sizes if not isinstance(s, int)][:3]
    for size in sizes:
        for seed in (0, 1):
            inputs = spec.make_inputs(size, torch.Generator().manual_seed(seed))
            out = fn(*[t.to(dev) for t in inputs]).double().cpu()
            as64 = [t.double() for t in inputs]
            ref = spec.reference(*as64)
            wrong = m.reference(*as64, meta={})
            share = _close(out, wrong, 2 * rtol, 2 * atol).float().mean().item()
            e_m = (out - wrong).abs()
            e_r = (out - ref).abs()
            print(f"{str(size):>20} seed {seed}: share within 2x tol of the model {share:.5f}; "
                  f"max |out - model| {e_m.max():.3g} (99.9th pct {e_m.flatten().kthvalue(max(1, int(0.999 * e_m.numel()))).values:.3g}); "
                  f"max |out - truth| {e_r.max():.3g}; |model - truth| max {(wrong - ref).abs().max():.3g}")


if __name__ == "__main__":
    main()
