"""Compile benchmarks/candidates/cross_entropy_coop.py's cooperative kernel for sm_90 without a GPU (the installed
Triton and its bundled ptxas) and say, per schedule, what ptxas allocates: registers per thread, spill bytes, shared
memory, and how many programs of it fit one H200 SM (65536 registers, 64 warps, 227 KB of shared memory). A
schedule whose chunk does not stay in registers (spills) holds the row in local memory instead: slower, still
correct. Says nothing about speed.

    PYTHONPATH=. python benchmarks/ce_coop_compile.py [--spec G,WARPS,FLAG,PIPE[,e|,ahead|,ahead_e] | G,WARPS,SUB,reread ...]
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

V = 128256
NAMES = ["X", "stride", "Target", "Loss", "NValid", "Part", "PartM", "PartS", "Cnt", "T", "V", "ignore_index",
         "n_groups"]
TYPES = ["*bf16", "i32", "*i64", "*fp32", "*fp32", "*i64", "*fp32", "*fp32", "*i32", "i32", "i32", "i32", "i32"]
DEFAULT = ("8,16,1,1", "8,16,1,0", "8,16,1,2", "8,16,0,1", "8,16,0,0", "16,8,1,1", "16,8,1,2", "16,16,1,1", "16,16,1,2", "4,16,1,1", "4,32,1,1",
           "8,8,1,1", "8,32,1,1", "8,16,1,0,ahead", "8,16,0,0,ahead", "16,8,1,0,ahead", "16,16,1,0,ahead",
           "8,32,1,0,ahead", "4,16,1,0,ahead", "4,32,1,0,ahead", "8,16,1,0,ahead_e", "8,32,1,0,ahead_e",
           "4,16,1,0,ahead_e", "4,32,1,0,ahead_e", "4,32,1,1", "4,32,1,1,e", "4,16,1,1,e", "8,16,1,1,e", "8,8,4096,reread", "8,16,4096,reread",
           "16,8,4096,reread", "4,8,4096,reread", "4,16,8192,reread", "8,4,2048,reread")


def ptxas_info(ptx: str) -> dict:
    import triton
    text = ""
    for name in ("ptxas-blackwell", "ptxas"):  # the bundled ptxas that reads this Triton's PTX version
        ptxas = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / name
        if not ptxas.exists():
            continue
        with tempfile.TemporaryDirectory() as d:
            src = Path(d) / "k.ptx"
            src.write_text(ptx)
            r = subprocess.run([str(ptxas), "-arch=sm_90a", "-v", str(src), "-o", str(Path(d) / "k.cubin")],
                               capture_output=True, text=True)
        text = r.stdout + r.stderr
        if "Used" in text:
            break
    regs = re.search(r"Used (\d+) registers", text)
    spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", text)
    return {"regs": int(regs.group(1)) if regs else None,
            "spill_stores": int(spill.group(1)) if spill else None, "spill_loads": int(spill.group(2)) if spill else None}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", action="append", help="G,WARPS,FLAG,PIPE[,ahead|,ahead_e] (repeatable)")
    a = ap.parse_args(argv)
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from benchmarks.constants import load_module
    mod = load_module(ROOT / "benchmarks" / "candidates" / "cross_entropy_coop.py", "ce_coop_compile")
    print(f"triton {triton.__version__}, target sm_90, V = {V}")
    for spec in a.spec or DEFAULT:
        if spec.endswith(",reread"):  # G,WARPS,SUB,reread: _ce_coop_reread
            g, warps, sub = (int(s) for s in spec.split(",")[:3])
            names = NAMES[:6] + ["T", "V", "ignore_index", "n_groups", "CHUNK"]
            types = TYPES[:6] + ["i32"] * 5
            consts = {"G": g, "SUB": sub, "WAIT": True}
            sig = dict(zip(names, types))
            sig.update({k: "constexpr" for k in consts})
            attrs = {(i,): [["tt.divisibility", 16]] for i, n in enumerate(names)
                     if n not in ("ignore_index", "T", "n_groups")}
            k = triton.compile(ASTSource(fn=mod._ce_coop_reread, signature=sig, constexprs=consts, attrs=attrs),
                               target=GPUTarget("cuda", 90, 32), options={"num_warps": warps, "num_stages": 1})
            info = ptxas_info(k.asm["ptx"])
            shared = k.metadata.shared
            fit = min(65536 // max(1, (info["regs"] or 1) * 32 * warps), 64 // warps,
                      232448 // shared if shared else 64)
            print(f"  G={g:2d} SUB={sub:5d} warps={warps:2d} REREAD : regs {info['regs']}, spill "
                  f"{info['spill_stores']}/{info['spill_loads']} B, shared {shared} B, programs per SM {fit}",
                  flush=True)
            continue
        g, warps, flag, pipe = (int(s) for s in spec.split(",")[:4])
        ahead = spec.endswith((",ahead", ",ahead_e"))
        block = triton.next_power_of_2(triton.cdiv(V, g))
        consts = {"G": g, "BLOCK": block, "FLAG": bool(flag), "WAIT": True}
        consts["CACHE_E"] = spec.endswith((",ahead_e", ",e"))
        if not ahead:
            consts["PIPE"] = pipe
        sig = {n: t for n, t in zip(NAMES, TYPES)}
        sig.update({k: "constexpr" for k in consts})
        attrs = {(i,): [["tt.divisibility", 16]] for i, n in enumerate(NAMES)
                 if n not in ("ignore_index", "T", "n_groups")}
        try:
            k = triton.compile(ASTSource(fn=mod._ce_coop_ahead if ahead else mod._ce_coop, signature=sig, constexprs=consts, attrs=attrs),
                               target=GPUTarget("cuda", 90, 32), options={"num_warps": warps, "num_stages": 1})
        except Exception as e:  # noqa: BLE001 - reported per schedule
            print(f"  FAILED G={g} warps={warps} FLAG={flag} {'AHEAD' if ahead else f'PIPE={pipe}'}: {type(e).__name__}: {str(e)[:300]}")
            continue
        info = ptxas_info(k.asm["ptx"])
        shared = k.metadata.shared
        fit = min(65536 // max(1, (info["regs"] or 1) * 32 * warps), 64 // warps,
                  232448 // shared if shared else 64)
        ptx = k.asm["ptx"]
        n_atom = len(re.findall(r"atom\.", ptx))
        n_vol = len(re.findall(r"ld\.volatile", ptx))
        n_v4 = len(re.findall(r"ld\.global[.\w:]*\.v4", ptx))
        print(f"  G={g:2d} BLOCK={block:5d} warps={warps:2d} FLAG={flag} {('AHEAD_E' if consts.get('CACHE_E') else 'AHEAD  ') if ahead else f'PIPE={pipe}' + ('E ' if consts['CACHE_E'] else '  ')}: regs {info['regs']}, spill "
              f"{info['spill_stores']}/{info['spill_loads']} B, shared {shared} B, programs per SM {fit}; "
              f"atom {n_atom}, ld.volatile {n_vol}, ld.v4 {n_v4}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
