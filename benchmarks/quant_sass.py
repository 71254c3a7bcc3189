"""Why the quant-matmul kernels sit at ~1 TB/s: the instructions each kernel's K loop issues per weight, counted in
the SASS Triton 3.6 (the H200's version) compiles for sm_90 on a CPU (no GPU needed; benchmark, not a test).

    PYTHONPATH=<unpacked triton 3.6>:. python benchmarks/quant_sass.py [--only SUBSTRING] [--dump DIR]

Each candidate is compiled with the specialisation a launch at N = K = 8192 gets (unit strides constant, the other
integers and the pointers divisible by 16; M = 1 constant for the M = 1 rows), ptxas included, then disassembled
(nvdisasm). The K loop is the block that branches back to its own label; its instructions are grouped by opcode and
divided by the weights one iteration of one thread handles (BLOCK_K x BLOCK_N / threads). What the figures mean
on the H200 (132 SMs at 1.98 GHz): an SM issues 4 warp instructions a clock, 128 lanes; integer/logic ops (LOP3,
SHF, PRMT, SGXT, IADD3) run 64 lanes a clock, conversions (I2F, F2F) 16 (CUDA C programming guide, arithmetic
throughput for compute capability 9.0). The 8192 x 8192 weight is 67.1 M weights: at 16 conversions a clock per SM,
one I2F per weight alone takes 67.1e6 / (16 x 132 x 1.98e9) = 16 us; the int4 bytes at 4.8 TB/s take 7 us.
"""
from __future__ import annotations

import argparse
import collections
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SMS, CLOCK = 132, 1.98e9
WEIGHTS = 8192 * 8192
# lanes per clock per SM by opcode class (sm_90); unknown opcodes count in the issue slots only
RATE = {"I2F": 16, "F2F": 16, "F2I": 16, "LOP3": 64, "SHF": 64, "PRMT": 64, "SGXT": 64, "IADD3": 64, "LEA": 64,
        "ISETP": 64, "SEL": 64, "VIADD": 64, "IMAD": 64, "HMUL2": 128, "HADD2": 128, "HFMA2": 128, "FADD": 128,
        "FFMA": 128, "FMUL": 128}
CONVERT = ("I2F", "F2F", "F2I", "I2FP")
INT = ("LOP3", "SHF", "PRMT", "SGXT", "IADD3", "LEA", "ISETP", "SEL", "VIADD", "IMAD", "IABS", "BMSK")


def rows():
    """(label, kernel, constexprs, warps, stages, M constant?, weights per program iteration)."""
    from benchmarks import serving_candidates as sc
    from benchmarks.constants import load_module
    out = []
    for label, path in (("previous reference (candidates/quant_matmul_k2.py)",
                         "benchmarks/candidates/quant_matmul_k2.py"),
                        ("reference (solutions/quant_matmul.py, eo since round 4)", "solutions/quant_matmul.py"),
                        ("eo by bits (candidates/quant_matmul_eo_magic.py)",
                         "benchmarks/candidates/quant_matmul_eo_magic.py")):
        mod = load_module(ROOT / path, "sass_" + re.sub(r"\W", "_", path))
        out.append((f"{label} (16, 64, 128) split-K 4", mod.w4a16_kernel,
                    dict(GROUP_SIZE=128, BLOCK_M=16, BLOCK_N=64, BLOCK_K=128, SPLIT_K=4), 4, 3, False, 128 * 64))
        out.append((f"{label} (256, 128, 64) M=4096", mod.w4a16_kernel,
                    dict(GROUP_SIZE=128, BLOCK_M=256, BLOCK_N=128, BLOCK_K=64, SPLIT_K=1), 8, 4, False, 64 * 128))
    r_base = dict(GROUP_SIZE=128, GROUP_M=1, SCALE=1, JOIN=0, MAGIC=0, SWAP=0, ATOMIC16=1)
    out.append(("r + magic (16, 64, 128) split-K 4", sc._w4_r,
                {**r_base, "BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_K": 128, "SPLIT_K": 4, "MAGIC": 1}, 4, 3, False,
                128 * 64))
    for mode in (0, 1, 2):
        for asplit in (0, 1):
            for swap in (0, 1):
                out.append((f"eo mode {mode} asplit {asplit} swap {swap} (16, 64, 128) split-K 4", sc._w4_eo,
                            dict(GROUP_SIZE=128, BLOCK_M=16, BLOCK_N=64, BLOCK_K=128, SPLIT_K=4, GROUP_M=1, MODE=mode,
                                 ASPLIT=asplit, SWAP=swap, UNROLL=1), 4, 3, False, 128 * 64))
    out.append(("r + magic + swap, grouped (256, 128, 64) M=4096 (batch 3's fastest fused)", sc._w4_r,
                {**r_base, "BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "SPLIT_K": 1, "MAGIC": 1, "SWAP": 1,
                 "GROUP_M": 8}, 8, 4, False, 64 * 128))
    for mode, asplit, swap, (bm, bn, bk) in ((1, 1, 1, (256, 128, 64)), (1, 1, 0, (256, 128, 64)),
                                             (1, 0, 1, (256, 128, 64)), (1, 1, 1, (128, 256, 64)),
                                             (1, 1, 0, (128, 256, 64)), (1, 1, 1, (256, 128, 128)),
                                             (2, 1, 1, (256, 128, 64))):
        out.append((f"eo mode {mode} asplit {asplit} swap {swap} ({bm}, {bn}, {bk}) M=4096", sc._w4_eo,
                    dict(GROUP_SIZE=128, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, SPLIT_K=1, GROUP_M=8, MODE=mode,
                         ASPLIT=asplit, SWAP=swap, UNROLL=1), 8, 4 if bk == 64 else 3, False, bk * bn))
    out.append(("eo mode 1 unroll 2 (16, 64, 128) split-K 4", sc._w4_eo,
                dict(GROUP_SIZE=128, BLOCK_M=16, BLOCK_N=64, BLOCK_K=128, SPLIT_K=4, GROUP_M=1, MODE=1, ASPLIT=1,
                     SWAP=0, UNROLL=2), 4, 3, False, 2 * 128 * 64))
    gv_names = ["a_ptr", "w_ptr", "s_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_ak", "stride_wk", "stride_sg",
                "stride_sn", "stride_cm", "stride_cn"]
    gv_types = ["*fp16", "*i32", "*fp16", "*fp32"] + ["i32"] * 10
    for bc, br, sk in ((32, 64, 16), (32, 64, 8)):
        out.append((f"gv (int32 words, no dot) BN {4 * bc} BR {br} split-K {sk} M=1", sc._w4_gemv_words,
                    dict(GROUP_SIZE=128, BLOCK_C=bc, BLOCK_R=br, SPLIT_K=sk, ATOMIC16=0), 4, 3, True,
                    2 * br * 4 * bc, (gv_names, gv_types)))
    return out


S5_NAMES = NAMES_S5 = ["a_ptr", "w_ptr", "s_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_ak", "stride_wk",
                       "stride_wn", "stride_sg", "stride_sn", "stride_cm", "stride_cn", "stride_cs"]


def rows_r5():
    """Round 5 (benchmarks/quant_r5_kernels.py): kind s5's switches at (16, 64, 128) split-K 4 / 8, and the float16
    GEMM of the dequant-then-GEMM path at M = 4096."""
    from benchmarks import quant_r5_kernels as r5
    base = dict(GROUP_SIZE=128, BLOCK_M=16, BLOCK_N=64, BLOCK_K=128, SPLIT_K=4, PIPE=None, SCALE_PART=0, REDUCE=0,
                WORDS=0, DOT=1, UNROLL=None)
    out = []
    s5_types = ["*fp16", "*u8", "*fp16", "*fp16"] + ["i32"] * 12
    for name, extra, stages in (("s5 (= eo by bits)", {}, 3), ("s5 pipe 4", {"PIPE": 4}, 3),
                                ("s5 scale on the partial", {"SCALE_PART": 1}, 3),
                                ("s5 words", {"WORDS": 1}, 3), ("s5 words + scale on the partial",
                                                                {"WORDS": 1, "SCALE_PART": 1}, 3),
                                ("s5 reduce split-K 8", {"REDUCE": 1, "SPLIT_K": 8}, 3),
                                ("s5 unroll 2", {"UNROLL": 2}, 3)):
        types = list(s5_types)
        if extra.get("WORDS"):
            types[1] = "*i32"
        if extra.get("REDUCE"):
            types[3] = "*fp32"
        out.append((f"{name} (16, 64, 128)", r5._w4_s5, {**base, **extra}, 4, stages, False,
                    128 * 64 * (extra.get("UNROLL") or 1),
                    (NAMES_S5, types)))
    out.append(("s5 broadcast FMA (1, 128, 128) split-K 16 M=1", r5._w4_s5,
                {**base, "BLOCK_M": 1, "BLOCK_N": 128, "SPLIT_K": 16, "DOT": 0, "SCALE_PART": 1}, 4, 3, True,
                128 * 128, (NAMES_S5, s5_types)))
    return out


def rows_r6():
    """Round 6 (benchmarks/candidates/quant_matmul_ptx.py): the reference's M <= 16 kernel, its unpack by bits
    (UNPACK 0), two nibbles per integer instruction in PTX (UNPACK 1; 2: the asm not pure; 3: and one dot), at
    (16, 64, 128) split-K 4, 4 stages."""
    from benchmarks.constants import load_module
    mod = load_module(ROOT / "benchmarks" / "candidates" / "quant_matmul_ptx.py", "sass_quant_ptx")
    base = dict(GROUP_SIZE=128, BLOCK_M=16, BLOCK_N=64, BLOCK_K=128, SPLIT_K=4, FIXUP=False)
    # the workspace and counter of round 7's FIXUP follow c
    names_types = (NAMES + ["ws_ptr", "count_ptr"], TYPES + ["*fp32", "*i32"])
    return [(f"ptx candidate UNPACK {u} (16, 64, 128) split-K 4", mod.w4a16_kernel, {**base, "UNPACK": u}, 4, 4,
             False, 128 * 64, names_types) for u in (0, 1, 2, 3)]


NAMES = ["a_ptr", "w_ptr", "s_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_ak", "stride_wk", "stride_wn",
         "stride_sg", "stride_sn", "stride_cm", "stride_cn"]
TYPES = ["*fp16", "*u8", "*fp16", "*fp16"] + ["i32"] * 11
UNIT = ("stride_ak", "stride_wn", "stride_sn", "stride_cn")


def compile_sass(fn, consts, warps, stages, m_one=False, names_types=None):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.tools.disasm import get_sass
    names, types = names_types or (NAMES, TYPES)
    fixed = {n: 1 for n in UNIT + (("M",) if m_one else ()) if n in names}
    if "stride_cs" in names:  # kind s5: the partials' split stride is 0 unless REDUCE
        fixed.setdefault("stride_cs", 0) if not consts.get("REDUCE") else None
    sig = {n: ("constexpr" if n in fixed else t) for n, t in zip(names, types)}
    sig.update({k: "constexpr" for k in consts})
    attrs = {(i,): [["tt.divisibility", 16]] for i, n in enumerate(names) if n not in fixed}
    k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs={**consts, **fixed}, attrs=attrs),
                       target=GPUTarget("cuda", 90, 32), options={"num_warps": warps, "num_stages": stages})
    return k, get_sass(k.asm["cubin"])


def registers(k) -> str:
    """Registers per thread, from ptxas -v on the kernel's PTX (n_regs needs a GPU)."""
    import subprocess
    import tempfile

    from triton.backends.nvidia.compiler import get_ptxas
    with tempfile.TemporaryDirectory() as d:
        ptx = Path(d) / "k.ptx"
        ptx.write_text(k.asm["ptx"])
        try:
            out = subprocess.run([get_ptxas(90).path, "-v", "--gpu-name", "sm_90a", str(ptx), "-o", str(Path(d) / "o")],
                                 capture_output=True, text=True, timeout=120)
        except Exception:  # noqa: BLE001 - the figure is then unknown
            return "?"
    m = re.search(r"Used (\d+) registers", out.stderr + out.stdout)
    return m.group(1) if m else "?"


def loop_body(sass: str) -> list[str]:
    """The opcodes of the longest block that branches back to its own label (the K loop)."""
    lines = [re.sub(r"^[^\t]*\t", "", x).strip() for x in sass.splitlines()]
    best: list[str] = []
    labels = {}
    for i, x in enumerate(lines):
        m = re.match(r"^(\.?L\w+):", x)
        if m:
            labels[m.group(1)] = i
        m = re.search(r"BRA (\.?L\w+);", x)
        if m and m.group(1) in labels and labels[m.group(1)] < i:
            body = [y for y in lines[labels[m.group(1)] + 1:i + 1] if y and not y.endswith(":")]
            if len(body) > len(best):
                best = body
    return [re.sub(r"^@!?U?P\w+ ", "", y).split()[0].split(".")[0].rstrip(";") for y in best]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only")
    ap.add_argument("--dump")
    ap.add_argument("--r5", action="store_true", help="round 5's kind s5 rows only")
    ap.add_argument("--r6", action="store_true", help="round 6's PTX-unpack candidate only")
    a = ap.parse_args(argv)
    import triton
    print(f"triton {triton.__version__}, sm_90; per weight = instructions of one thread's loop iteration / the "
          f"weights it handles; bounds at {SMS} SMs x {CLOCK / 1e9:.2f} GHz for the 8192 x 8192 weight")
    chosen = rows_r6() if a.r6 else rows_r5() if a.r5 else rows()
    for label, fn, consts, warps, stages, m_one, per_iter, *nt in chosen:
        if a.only and a.only not in label:
            continue
        k, sass = compile_sass(fn, consts, warps, stages, m_one, nt[0] if nt else None)
        if a.dump:
            Path(a.dump).mkdir(parents=True, exist_ok=True)
            (Path(a.dump) / (re.sub(r"\W+", "_", label) + ".sass")).write_text(sass)
        ops = collections.Counter(loop_body(sass))
        w = per_iter / (32 * warps)          # weights per thread per iteration
        total = sum(ops.values())
        conv = sum(v for o, v in ops.items() if o in CONVERT)
        intg = sum(v for o, v in ops.items() if o in INT)
        # lower bounds (us) on the whole weight, each pipe alone: issue (4 warp instr / clk / SM), int (64), cvt (16)
        per_sm_clk = WEIGHTS / w / 32 / SMS / CLOCK * 1e6   # us for one warp instruction per weight-group
        issue_us = total * per_sm_clk / 4
        int_us = intg * per_sm_clk * 32 / 64
        cvt_us = conv * per_sm_clk * 32 / 16
        top = ", ".join(f"{o} {v / w:.2f}" for o, v in ops.most_common(9))
        print(f"\n{label}: regs {registers(k)}, shared {k.metadata.shared} B, loop {total} instr for {w:.0f} weights "
              f"-> {total / w:.2f} / weight (int {intg / w:.2f}, convert {conv / w:.2f})\n"
              f"  bounds if nothing else waited: issue {issue_us:.1f} us, int pipe {int_us:.1f} us, convert "
              f"{cvt_us:.1f} us\n  {top}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
