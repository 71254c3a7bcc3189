"""Compile benchmarks/candidates/cross_entropy_head.py's kernel for sm_90 without a GPU (the installed Triton and
its bundled ptxas) and say, per schedule, what ptxas allocates: registers per thread, spill bytes, shared memory,
and how many programs fit one H200 SM (65536 registers, 64 warps, 227 KB of shared memory). A head that does not
stay in registers spills to local memory: slower, still correct. Says nothing about speed. On the H200 the lead's
batch also prints the CompiledKernel's n_regs / n_spills of the launched kernels (benchmarks/h200_ce_head.sh).

    PYTHONPATH=. python benchmarks/ce_head_compile.py [--spec HEAD,PERSIST,BLOCK_V,WARPS[,PACK[,HEAD2[,EARLY[,MAXNREG[,STAGES]]]]] ...]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.ce_coop_compile import ptxas_info  # noqa: E402

NAMES = ["X", "stride", "Target", "Loss", "NValid", "T", "V", "ignore_index", "n_prog"]
TYPES = ["*bf16", "i32", "*i64", "*fp32", "*fp32", "i32", "i32", "i32", "i32"]
DEFAULT = ("65536,0,8192,16", "65536,0,4096,16", "65536,0,16384,16", "65536,1,8192,16", "65536,0,8192,32",
           "65536,0,8192,16,1,32768", "65536,0,4096,16,1,32768", "65536,0,16384,16,1,32768", "32768,0,8192,8,1,16384",
           "32768,0,8192,16", "32768,0,4096,8", "16384,0,4096,8", "65536,0,8192,16,0", "65536,0,8192,16,1,0,1",
           "65536,0,8192,16,1,32768,1")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", action="append", help="HEAD,PERSIST,BLOCK_V,WARPS[,PACK 0|1[,HEAD2[,EARLY 0|1[,MAXNREG[,STAGES]]]]] (repeatable)")
    a = ap.parse_args(argv)
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from benchmarks.constants import load_module
    mod = load_module(ROOT / "benchmarks" / "candidates" / "cross_entropy_head.py", "ce_head_compile")
    print(f"triton {triton.__version__}, target sm_90")
    for spec in a.spec or DEFAULT:
        vals = [int(s) for s in spec.split(",")]
        head, persist, block, warps, pack, head2, early, maxnreg, stages = vals + [1, 0, 0, 0, 1][len(vals) - 4:]
        consts = {"HEAD": head, "HEAD2": head2, "FULL": True, "BLOCK_V": block, "REVERSE": True, "EVICT": True,
                  "PACK": bool(pack),
                  "PERSIST": bool(persist), "EARLY": bool(early), "STAGES": stages}
        sig = dict(zip(NAMES, TYPES))
        sig.update({k: "constexpr" for k in consts})
        attrs = {(i,): [["tt.divisibility", 16]] for i, n in enumerate(NAMES) if n not in ("ignore_index", "T", "n_prog")}
        try:
            k = triton.compile(ASTSource(fn=mod._ce_head, signature=sig, constexprs=consts, attrs=attrs),
                               target=GPUTarget("cuda", 90, 32), options={"num_warps": warps, "num_stages": 1,
                                                                   **({"maxnreg": maxnreg} if maxnreg else {})})
        except Exception as e:  # noqa: BLE001 - reported per schedule
            print(f"  FAILED HEAD={head} PERSIST={persist} BLOCK_V={block} warps={warps}: {type(e).__name__}: {str(e)[:300]}")
            continue
        info = ptxas_info(k.asm["ptx"])
        shared = k.metadata.shared
        fit = min(65536 // max(1, (info["regs"] or 1) * 32 * warps), 64 // warps, 232448 // shared if shared else 64)
        held = head + head2
        print(f"  HEAD={head:6d}+{head2:5d} PERSIST={persist} BLOCK_V={block:5d} warps={warps:2d} PACK={pack} EARLY={early} MAXNREG={maxnreg} STAGES={stages}: {held // (32 * warps):4d} logits a "
              f"thread held; regs {info['regs']}, spill {info['spill_stores']}/{info['spill_loads']} B, shared {shared} B, "
              f"programs per SM {fit}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
