"""Check three claims of the oral checkpoints against the Inductor of this machine (benchmark, not a test).

    PYTHONPATH=. python benchmarks/inductor_codegen_facts.py [--out DIR]

1. indexing-and-coalescing: x.t().contiguous() is tiled in 2-D (yindex, tl.program_id(1)), not one flat xindex.
2. reduction-codegen: a softmax over rows longer than a persistent block (64 x 8192) makes two passes over memory on
   CUDA (online softmax: max and sum in one loop, then exp / sum and the store): counts the loads and stores.
3. read-generated-kernel: relu(x + y) with n a multiple of every XBLOCK gets a constant mask (tl.full(..., True)).

On CUDA it compiles for the GPU. Without one it makes Inductor generate Triton for the CPU tensors the way
`drill inductor` does (coach/inductor/child.py, private API); the kernels are generated, not run. There the softmax
rewrite does not apply (it is CUDA/XPU only): (2) then shows x read twice plus the exponentials stored and read
back (3 loads, 2 stores). Prints one JSON line per check and
writes DIR/inductor_codegen_facts.json when --out is given.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def kernels(sources: list[str]) -> list[str]:
    out = []
    for src in sources:
        out += re.findall(r"@triton\.jit\ndef .*?(?=\n'''|\n\"\"\"|\ndef call|\Z)", src, re.S)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="oral_facts_"))
    import torch

    device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"
        from coach.inductor.child import enable_cpu_triton
        ok, why = enable_cpu_triton()
        if not ok:
            print(json.dumps({"skipped": f"no GPU and no Triton code generation on CPU: {why}"}))
            return 0
    import torch._inductor.config as inductor_config
    from torch._inductor.utils import get_code

    inductor_config.fx_graph_cache = False  # a cache hit has no source to show

    def generated(fn, *inputs):
        """The generated kernels, without running them (the interpreter cannot run every generated kernel)."""
        torch._dynamo.reset()
        return kernels(get_code(torch.compile(fn), *inputs))

    results = {"device": device, "torch": torch.__version__}
    import triton
    results["triton"] = triton.__version__

    x = torch.randn(347, 301, device=device)
    ks = generated(lambda t: t.t().contiguous(), x)
    results["transpose"] = {"kernels": len(ks), "tiled_2d": any("yindex" in k and "program_id(1)" in k for k in ks),
                            "kernel": ks[0] if ks else None}

    rows = torch.randn(64, 8192, device=device)
    ks = generated(lambda t: torch.softmax(t, dim=1), rows)
    results["softmax"] = {"shape": [64, 8192], "kernels": len(ks),
                          "loads": sum(len(re.findall(r"tl\.load\(", k)) for k in ks),
                          "stores": sum(len(re.findall(r"tl\.store\(", k)) for k in ks),
                          "online": any("online_softmax" in k for k in ks)}

    a = torch.randn(1 << 20, device=device)
    b = torch.randn(1 << 20, device=device)
    ks = generated(lambda p, q: torch.relu(p + q), a, b)
    results["constant_mask"] = {"n": 1 << 20, "constant": any(re.search(r"xmask = tl\.full\(", k) for k in ks),
                                "no_mask_on_load": any("tl.load(in_ptr0 + (x0), None" in k for k in ks)}

    for key in ("transpose", "softmax", "constant_mask"):
        print(json.dumps({key: {k: v for k, v in results[key].items() if k != "kernel"}}))
    print(json.dumps({"device": device, "torch": results["torch"], "triton": results["triton"]}))
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "inductor_codegen_facts.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
