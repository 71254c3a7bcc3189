"""What the GPU compiled for each benchmarks/candidates/cross_entropy_head.py schedule (benchmark helper, not a
test): one forward at (8192, 128256) bf16 per schedule, then the launched kernel's CompiledKernel fields: registers
per thread (n_regs), spilled registers (n_spills), shared memory, and the plan (HEAD, HEAD2, FULL, BLOCK_V, programs)
the wrapper chose. Times nothing.

    PYTHONPATH=. python benchmarks/ce_head_probe.py FILE:NAME=VALUE,... [...]
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from constants import load_module, parse_spec  # noqa: E402


def main(argv=None) -> int:
    import torch
    specs = argv if argv is not None else sys.argv[1:]
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    t, v = (8192, 128256) if dev == "cuda" else (2, 3002)
    x = (torch.randn(t, v, device=dev) * 2).to(torch.bfloat16)
    y = torch.randint(0, v, (t,), device=dev)
    for n, spec in enumerate(specs):
        path, consts = parse_spec(spec)
        mod = load_module(path, f"head_probe_{n}")
        for k, val in consts.items():
            setattr(mod, k, val)
        mod.cross_entropy(x.clone(), y)
        k = mod.LAST_KERNEL
        packed = mod._packable(x)
        plan = mod._plan(t, v, x.device, packed)
        regs = getattr(k, "n_regs", None)
        spills = getattr(k, "n_spills", None)
        shared = getattr(getattr(k, "metadata", None), "shared", None)
        print(f"  {spec.split(':', 1)[-1]}: n_regs {regs}, n_spills {spills}, shared {shared} B, PACK {packed}, "
              f"plan {plan}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
