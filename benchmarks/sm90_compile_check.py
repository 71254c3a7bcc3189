"""Compile the H200 batch's candidate kernels for sm_90 without a GPU (a CPU-safe check before a GPU batch).

    PYTHONPATH=[<unpacked triton 3.6>:]. python benchmarks/sm90_compile_check.py [--quick]

Each alternative quant schedule of benchmarks/serving_sweep.py (the kernel benchmarks/candidates/quant_matmul_awq.py
launches for it at N = K = 8192, group 128) and each cross-entropy candidate schedule of
benchmarks/h200_speed_batch.sh is compiled by the installed Triton for an sm_90 target (ptxas included), with the
argument specialisation a launch would get (unit strides as constants, pointers and sizes divisible by 16). Per
kernel: whether it compiled, the shared memory it asks for (the H200 gives 227 KB per block), whether the dot became
a wgmma and whether the loop's loads became cp.async (pipelined). Kernels that fail here would be dropped from the
sweep on the GPU; the figures say nothing about speed.
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SMEM_LIMIT = 232448  # bytes per block on sm_90
Q_NAMES = ["a_ptr", "w_ptr", "s_ptr", "c_ptr", "p_ptr", "M", "N", "K", "stride_am", "stride_ak", "stride_wk",
           "stride_wn", "stride_sg", "stride_sn", "stride_cm", "stride_cn"]
Q_TYPES = ["*fp16", "*u8", "*fp16", "*fp16", "*fp32"] + ["i32"] * 11
Q_UNIT = ("stride_ak", "stride_wn", "stride_sn", "stride_cn")
CE_NAMES = ["X", "stride", "Target", "Loss", "NValid", "T", "V", "ignore_index"]
CE_TYPES = ["*bf16", "i32", "*i64", "*fp32", "*fp32", "i32", "i32", "i32"]
LA_NAMES = ["X", "stride", "Target", "Loss", "NValid", "PartM", "PartS", "XY", "Sync", "T", "V", "ignore_index"]
LA_TYPES = ["*bf16", "i32", "*i64", "*fp32", "*fp32", "*fp32", "*fp32", "*fp32", "*i32", "i32", "i32", "i32"]
CE_V = 128256


def compile_one(fn, names, types, consts, unit=(), ones=(), warps=4, stages=3):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    fixed = {n: 1 for n in (*unit, *ones)}
    sig = {n: ("constexpr" if n in fixed else t) for n, t in zip(names, types)}
    sig.update({k: "constexpr" for k in consts})
    attrs = {(i,): [["tt.divisibility", 16]] for i, n in enumerate(names)
             if n not in fixed and n not in ("ignore_index", "T")}
    src = ASTSource(fn=fn, signature=sig, constexprs={**consts, **fixed}, attrs=attrs)
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps, "num_stages": stages})
    ptx = k.asm["ptx"]
    return {"shared": k.metadata.shared, "wgmma": "wgmma" in ptx, "mma.sync": "mma.sync" in ptx,
            "cp.async": "cp.async" in ptx, "ld.v4": len(re.findall(r"ld\.global[.\w:]*\.v4", ptx))}


def quant_jobs(quick: bool):
    from benchmarks import serving_sweep as sw
    seen = set()
    for m in sw.QUANT_M:
        for cfg in sw.QUANT_CONFIGS[m]:
            if not cfg["kind"].startswith("alt_") or (sw.label(cfg), m == 1) in seen:
                continue
            seen.add((sw.label(cfg), m == 1))
            yield m, cfg
            if quick and len(seen) >= 6:
                return


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a few kernels only")
    ap.add_argument("--only-ce-l2", action="store_true", help="only benchmarks/h200_ce_l2*.sh's candidates")
    a = ap.parse_args(argv)
    import triton

    from benchmarks.constants import load_module
    q = load_module(ROOT / "benchmarks" / "candidates" / "quant_matmul_awq.py", "sm90_quant")
    ce = load_module(ROOT / "benchmarks" / "candidates" / "cross_entropy_persistent.py", "sm90_ce")
    print(f"triton {triton.__version__} ({Path(triton.__file__).parent}), target sm_90", flush=True)
    bad = 0
    t0 = time.perf_counter()
    jobs = []
    for m, cfg in quant_jobs(a.quick):
        ones = ("M",) if m == 1 else ()
        if cfg["kind"] == "alt_gemv":
            consts = dict(GROUP_SIZE=128, BLOCK_N=cfg["BN"], BLOCK_R=cfg["BR"], SPLIT_K=cfg["SPLIT_K"])
            jobs.append((f"quant M={m} {cfg}", q.w4a16_gemv_kernel, Q_NAMES, Q_TYPES, consts, Q_UNIT, ones,
                         cfg["warps"], 3))
        else:
            consts = dict(GROUP_SIZE=128, BLOCK_M=cfg["BM"], BLOCK_N=cfg["BN"], BLOCK_K=cfg["BK"],
                          SPLIT_K=cfg["SPLIT_K"], MAGIC=bool(cfg["magic"]), SWAP=bool(cfg.get("swap", 0)))
            consts["FIXUP"] = bool(cfg.get("fixup", 0))
            jobs.append((f"quant M={m} {cfg}", q.w4a16_awq_kernel, Q_NAMES + ["cnt_ptr"], Q_TYPES + ["*i32"], consts,
                         Q_UNIT, ones, cfg["warps"], cfg["stages"]))
    batch = (ROOT / "benchmarks" / "h200_speed_batch.sh").read_text()
    for block, warps, rev, evict, pf in sorted(set(re.findall(
            r"BLOCK_V=(\d+),NUM_WARPS=(\d+),PROGRAMS_PER_SM=\d+,REVERSE=(\d),EVICT=(\d)(?:,PREFETCH=(\d))?", batch))):
        consts = dict(BLOCK_V=int(block), REVERSE=bool(int(rev)), EVICT=bool(int(evict)), PREFETCH=bool(int(pf or 0)))
        jobs.append((f"ce {consts} warps={warps}", ce._ce_fwd_grad, CE_NAMES, CE_TYPES, consts, (), (), int(warps),
                     3))
    # benchmarks/h200_ce_l2*.sh's chunked (last-arrival / LAG) and hinted-reference candidates
    la = load_module(ROOT / "benchmarks" / "candidates" / "cross_entropy_last_arrival.py", "sm90_la")
    hints = load_module(ROOT / "benchmarks" / "candidates" / "cross_entropy_hints.py", "sm90_hints")
    l2 = "".join(p.read_text() for p in sorted((ROOT / "benchmarks").glob("h200_ce_l2*.sh")))
    for spec in sorted(set(re.findall(r"\$LA:([\w=,]+)", l2))):
        kv = dict(x.split("=") for x in spec.split(","))
        chunk, lag = int(kv["CHUNK"]), int(kv["LAG"])
        c = -(-CE_V // chunk)
        consts = dict(C=c, CP=triton.next_power_of_2(c), CHUNK=chunk, LAG=lag, EVICT=kv.get("EVICT") == "True")
        jobs.append((f"ce last-arrival {spec}", la._ce_chunks, LA_NAMES, LA_TYPES, consts, (), (),
                     int(kv["NUM_WARPS"]), 3))
    for spec in sorted(set(re.findall(r"\$H:([\w=,]+)", l2))):
        kv = dict(x.split("=") for x in spec.split(","))
        consts = dict(BLOCK_V=int(kv["BLOCK_V"]), EVICT=kv.get("EVICT") == "True", REVERSE=kv.get("REVERSE") == "True",
                      KEEP=int(kv.get("KEEP", 0)), STAGES=int(kv.get("STAGES", 1)))
        jobs.append((f"ce hints {spec}", hints._ce_fwd_grad, CE_NAMES[:5] + CE_NAMES[6:], CE_TYPES[:5] + CE_TYPES[6:],
                     consts, (), (), int(kv["NUM_WARPS"]), 3))
    if a.only_ce_l2:
        jobs = [j for j in jobs if j[0].startswith(("ce last-arrival", "ce hints"))]
    for name, fn, names, types, consts, unit, ones, warps, stages in jobs:
        try:
            r = compile_one(fn, names, types, consts, unit, ones, warps, stages)
            over = r["shared"] > SMEM_LIMIT
            bad += over
            print(f"  {'TOO MUCH SMEM' if over else 'ok'} {name}: shared {r['shared']} B, wgmma {r['wgmma']}, "
                  f"mma.sync {r['mma.sync']}, cp.async {r['cp.async']}, v4 loads {r['ld.v4']}", flush=True)
        except Exception as e:  # noqa: BLE001 - reported per kernel
            bad += 1
            print(f"  FAILED {name}: {type(e).__name__}: {str(e)[:300]}", flush=True)
    print(f"{len(jobs)} kernels, {bad} failed or over the shared-memory limit, {time.perf_counter() - t0:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
