"""Time the candidate schedules of benchmarks/serving_candidates.py side by side with cuBLAS / SDPA / eager on a GPU
(issue 22's speed; benchmark, not a test). Every candidate is checked against a float32 torch result first; a wrong
one is printed and not timed.

    PYTHONPATH=. python benchmarks/serving_sweep.py --case quant|decode [--rounds 3] [--jobs 12] [--dry]

--dry (CPU, no GPU needed): every quant candidate of every M class run under Triton's interpreter at small shapes
(N and K not multiples of the tiles, group 128 and group 32) and checked against float64 torch; nothing is timed.

Compilation runs first in --jobs worker processes that share one TRITON_CACHE_DIR (each runs its configs once at
the real shapes), so the timing process only loads compiled kernels. Timing: grader.speed.timing.bench_ms
(do_bench median, L2 flushed) per function, functions alternating within each round, --rounds rounds; the table
shows the median over rounds, the min..max, and the ratio to the baseline (baseline time / candidate time).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

N_K, GROUP = 8192, 128
QUANT_M = (1, 16, 128, 4096)


def _q(kind, bm, bn, bk, sk=1, warps=4, stages=3):
    return dict(kind=kind, BM=bm, BN=bn, BK=bk, SPLIT_K=sk, warps=warps, stages=stages)


def _alt(bm, bn, bk, sk, warps=4, stages=3, magic=1, swap=0, fixup=0):
    cfg = dict(kind="alt_awq", BM=bm, BN=bn, BK=bk, SPLIT_K=sk, warps=warps, stages=stages, magic=magic, swap=swap)
    return {**cfg, "fixup": 1} if fixup else cfg  # batch 2's labels unchanged


def _gemv(bn, br, sk, warps=4):
    return dict(kind="alt_gemv", BN=bn, BR=br, SPLIT_K=sk, warps=warps)


# Batch 1 (2026-12-01 14:59) timed the k2 / evenodd / swap kinds (docs/serving.md); kept here: the reference's tiles
# and the fastest of each. New in this batch: the alternative reference (benchmarks/candidates/quant_matmul_awq.py).
QUANT_SMALL = [
    _q("k2", 16, 64, 64, 1, 4, 3),  # the current reference's tiles (M <= 16)
    _q("evenodd", 16, 128, 256, 4),  # the fastest at M = 16 in batch 1 (0.64 x cuBLAS)
    _q("awq_join", 16, 128, 128, 4),
    _alt(16, 64, 128, 4), _alt(16, 64, 128, 8), _alt(16, 64, 128, 16), _alt(16, 128, 128, 4), _alt(16, 128, 128, 8),
    _alt(16, 64, 64, 8, 4, 4), _alt(16, 128, 64, 8, 4, 4), _alt(16, 256, 128, 4, 8), _alt(16, 32, 128, 8),
    _alt(16, 64, 128, 4, magic=0), _alt(16, 128, 128, 8, magic=0), _alt(16, 64, 128, 8, 4, 4),
    _alt(16, 64, 128, 4, swap=1), _alt(16, 64, 128, 8, swap=1), _alt(16, 128, 128, 8, swap=1),
    _alt(16, 128, 64, 8, 4, 4, swap=1), _alt(16, 64, 128, 16, swap=1), _alt(16, 128, 128, 4, 8, 3, swap=1),
    # after batch 2: split-K in one launch (the tile's last program sums the partials)
    _alt(16, 64, 128, 4, fixup=1), _alt(16, 64, 128, 8, fixup=1), _alt(16, 64, 128, 16, fixup=1),
    _alt(16, 32, 128, 8, fixup=1),
]
QUANT_GEMV = [_gemv(128, 64, 8), _gemv(128, 64, 4), _gemv(128, 64, 16), _gemv(256, 64, 8, 8), _gemv(256, 64, 4),
              _gemv(64, 64, 8), _gemv(64, 64, 16), _gemv(128, 32, 8), _gemv(128, 32, 16), _gemv(256, 32, 8),
              _gemv(512, 32, 8, 8), _gemv(64, 32, 32)]
QUANT_LARGE = [
    _q("k2", 128, 128, 64, 1, 4, 4), _q("k2", 128, 256, 64, 1, 8, 3),  # the current reference's tiles (M > 16)
    _alt(128, 256, 64, 1, 8, 3), _alt(128, 256, 64, 1, 8, 4), _alt(128, 128, 64, 1, 4, 4), _alt(128, 128, 64, 1, 8, 3),
    _alt(128, 256, 128, 1, 8, 3), _alt(256, 128, 64, 1, 8, 3), _alt(128, 256, 64, 1, 8, 3, magic=0),
    _alt(128, 128, 128, 1, 8, 3), _alt(64, 256, 64, 1, 4, 4),
    _alt(128, 256, 64, 1, 8, 3, swap=1), _alt(128, 128, 64, 1, 4, 4, swap=1), _alt(256, 128, 64, 1, 8, 3, swap=1),
    _alt(128, 256, 64, 1, 8, 4, swap=1), _alt(128, 128, 64, 1, 8, 3, swap=1),
]
QUANT_MID = [_alt(64, 128, 64, 2, 4, 4), _alt(64, 128, 128, 2, 4, 3), _alt(64, 64, 128, 4), _alt(32, 128, 128, 4),
             _alt(128, 128, 64, 2, 4, 4), _alt(64, 128, 64, 2, 4, 4, swap=1), _alt(32, 128, 128, 4, swap=1),
             _alt(128, 128, 64, 1, 4, 4, swap=1), _alt(64, 64, 128, 4, fixup=1), _alt(64, 64, 128, 8, fixup=1)]
QUANT_CONFIGS = {1: QUANT_SMALL + QUANT_GEMV, 16: QUANT_SMALL, 128: QUANT_SMALL[:1] + QUANT_LARGE[:6] + QUANT_MID,
                 4096: QUANT_LARGE}


def _r(bm, bn, bk, sk=1, warps=4, stages=3, scale=1, join=0, magic=0, swap=0, a16=0, gm=1):
    """Kind "r" (speed batch 3): the reference's structure with switches (serving_candidates._w4_r)."""
    cfg = dict(kind="r", BM=bm, BN=bn, BK=bk, SPLIT_K=sk, warps=warps, stages=stages, scale=scale)
    extra = dict(join=join, magic=magic, swap=swap, atomic16=a16, gm=gm)
    return {**cfg, **{k: v for k, v in extra.items() if v not in (0, 1) or (k != "gm" and v)}}


# Speed batch 3 (`--set 3`): can the reference's own structure, made cheaper per weight step by step, reach the
# issue's goals? Small M timed as CUDA-graph replays (device time) beside one do_bench round.
B3_SMALL = [
    _q("k2", 16, 64, 64, 1, 4, 3),                                   # the shipped reference
    _r(16, 64, 64, scale=0),                                         # the same kernel as kind r (a sanity row)
    _r(16, 64, 128), _r(16, 32, 128), _r(16, 16, 128), _r(16, 32, 128, 1, 2, 4), _r(16, 64, 128, 1, 4, 4),
    _r(16, 16, 128, 1, 2, 3), _r(16, 32, 128, magic=1), _r(16, 32, 128, join=1, magic=1),
    _r(16, 64, 128, 4), _r(16, 64, 128, 4, join=1, magic=1),        # split-K, float32 atomics + cast
    _r(16, 64, 128, 4, a16=1), _r(16, 32, 128, 4, a16=1), _r(16, 64, 128, 8, a16=1), _r(16, 128, 128, 8, a16=1),
    _r(16, 32, 128, 2, a16=1), _r(16, 64, 64, 8, 4, 4, a16=1), _r(16, 32, 128, 8, a16=1), _r(16, 64, 128, 16, a16=1),
    _r(16, 128, 128, 4, 8, 3, a16=1), _r(16, 16, 128, 2, 2, 3, a16=1), _r(16, 32, 64, 4, 4, 4, a16=1),
    _r(16, 64, 128, 4, a16=1, magic=1), _r(16, 64, 128, 4, a16=1, join=1, magic=1),
    _r(16, 64, 128, 8, a16=1, join=1, magic=1), _r(16, 64, 128, 4, scale=2, join=1, magic=1, a16=1),
    _r(16, 64, 128, 8, scale=2, join=1, magic=1, a16=1), _r(16, 64, 128, 4, swap=1, a16=1),
    _alt(16, 64, 128, 4), _alt(16, 64, 128, 4, fixup=1), _alt(16, 64, 128, 8, fixup=1),   # batch 2's candidate
]
B3_LARGE = [
    _q("k2", 128, 256, 64, 1, 8, 3),                                 # the shipped reference
    _r(128, 128, 64, 1, 4, 4, magic=1), _r(128, 128, 64, 1, 8, 3, magic=1), _r(128, 256, 64, 1, 8, 3, magic=1),
    _r(128, 256, 64, 1, 8, 4, magic=1), _r(256, 128, 64, 1, 8, 3, magic=1), _r(256, 128, 64, 1, 8, 4, magic=1),
    _r(128, 128, 64, 1, 4, 5, magic=1),
    _r(128, 256, 64, 1, 8, 3, magic=1, gm=8), _r(128, 128, 64, 1, 4, 4, magic=1, gm=8),
    _r(256, 128, 64, 1, 8, 3, magic=1, gm=8), _r(128, 128, 64, 1, 8, 4, magic=1, gm=8),
    _r(128, 256, 64, 1, 8, 3, join=1, magic=1, gm=8), _r(128, 128, 64, 1, 4, 4, join=1, magic=1, gm=8),
    _r(256, 128, 64, 1, 8, 3, join=1, magic=1, gm=8),
    _r(128, 256, 64, 1, 8, 3, magic=1, swap=1, gm=8), _r(128, 128, 64, 1, 4, 4, magic=1, swap=1, gm=8),
    _r(256, 128, 64, 1, 8, 3, magic=1, swap=1, gm=8), _r(128, 128, 64, 1, 8, 4, magic=1, swap=1, gm=8),
    _r(128, 256, 64, 1, 8, 3, join=1, magic=1, swap=1, gm=8), _r(256, 128, 64, 1, 8, 4, magic=1, swap=1, gm=8),
    _r(128, 128, 64, 1, 4, 5, magic=1, swap=1, gm=8),
    _r(128, 256, 64, 1, 8, 3, gm=8), _r(128, 256, 64, 1, 8, 3, scale=0, gm=8),         # MAGIC off; the scale tile
    _r(128, 128, 64, 1, 4, 4, scale=2, magic=1, gm=8), _r(128, 128, 64, 1, 8, 3, scale=2, magic=1, gm=8),
    _r(128, 128, 128, 1, 8, 3, magic=1, gm=8), _r(128, 128, 128, 1, 8, 3, magic=1, swap=1, gm=8),
]
B3_MID = [
    _q("k2", 128, 128, 64, 1, 4, 4),                                 # the shipped reference
    _r(64, 64, 128), _r(64, 128, 64, 1, 4, 4), _r(128, 128, 64, 1, 4, 4, magic=1, gm=8),
    _r(64, 64, 128, 2, a16=1), _r(32, 64, 128, 2, a16=1), _r(64, 128, 128, 2, a16=1), _r(64, 64, 128, 4, a16=1),
    _r(64, 128, 64, 1, 4, 4, magic=1, swap=1), _r(32, 64, 128, 4, a16=1, magic=1), _r(64, 64, 128, 1, 4, 4, magic=1),
    _alt(64, 64, 128, 4),                                            # batch 2's candidate
]


def _gv(bn, br, sk, warps=4, a16=1):
    """Kind "gv": the GEMV on int32 words of the packed weight (M = 1)."""
    return dict(kind="gv", BN=bn, BR=br, SPLIT_K=sk, warps=warps, **({"atomic16": 1} if a16 else {}))


def _rw(bn, br, sk, warps=4, stages=3, a16=1, bm=16):
    """Kind "rw": 8 dots per step on int32 words of the packed weight."""
    return dict(kind="rw", BM=bm, BN=bn, BR=br, SPLIT_K=sk, warps=warps, stages=stages,
                **({"atomic16": 1} if a16 else {}))


B3_WORDS = [_rw(64, 64, 4), _rw(64, 64, 8), _rw(128, 64, 4), _rw(128, 64, 8), _rw(32, 64, 8), _rw(64, 64, 1),
            _rw(64, 32, 8, 4, 4), _rw(64, 64, 4, 4, 4), _rw(128, 64, 4, 8), _rw(64, 64, 16), _rw(64, 64, 4, a16=0)]
B3_GEMV = [_gemv(128, 64, 16), _gv(128, 64, 8), _gv(128, 64, 16), _gv(256, 64, 8), _gv(256, 64, 16, 8),
           _gv(128, 32, 16), _gv(64, 64, 16), _gv(128, 64, 16, a16=0), _gv(512, 64, 8, 8), _gv(256, 32, 16),
           _gv(128, 64, 4), _gv(128, 64, 32), _gv(128, 64, 1)]
# After batch 3 (`--set 3b`, M = 4096 only): the new reference's large-M tiles without the bit-trick conversion
# (magic = 0, as solutions/quant_matmul.py) beside the same tiles with it.
B3B_LARGE = [
    _q("k2", 128, 256, 64, 1, 8, 3),                                 # the previous reference
    _r(256, 128, 64, 1, 8, 4), _r(256, 128, 64, 1, 8, 3), _r(128, 128, 64, 1, 8, 4), _r(128, 256, 64, 1, 8, 3),
    _r(256, 128, 64, 1, 8, 4, swap=1, gm=8), _r(256, 128, 64, 1, 8, 4, magic=1),
]
# `--set 3c` (not yet run): does do_bench charge a split-K wrapper with three launches (zeroed float32 C, the kernel,
# the cast) for time its kernels do not take? Batch 3's single do_bench round said 77.7 us against 40.8 us of
# device time at M = 16, where two launches (float16 atomics) read 42.3 against 39.2. Here: do_bench, 3 rounds
# (--rounds), then the fastest rows again as graph replays.
B3C_SMALL = [_r(16, 64, 128, 4, a16=1), _r(16, 64, 128, 4), _r(16, 64, 128, 8, a16=1), _r(16, 64, 128, 8),
             _alt(16, 64, 128, 4), _alt(16, 64, 128, 4, fixup=1)]
B3_CONFIGS = {1: B3_SMALL + B3_WORDS + B3_GEMV, 16: B3_SMALL + B3_WORDS, 128: B3_MID + [_rw(64, 64, 2, bm=64)],
              4096: B3_LARGE}



def _eo(bm, bn, bk, sk=1, warps=4, stages=3, mode=1, asplit=1, swap=0, gm=1, unroll=1):
    """Kind "eo" (round 4, serving_candidates._w4_eo): each byte loaded once, its nibbles dotted with a's even and
    odd columns; mode 0 the reference's arithmetic, 1 the nibble to float16 by bits, 2 by bits with the -1032 and the
    scale moved onto the step's partial product."""
    cfg = dict(kind="eo", BM=bm, BN=bn, BK=bk, SPLIT_K=sk, warps=warps, stages=stages, mode=mode)
    extra = dict(asplit=asplit, swap=swap, gm=gm, unroll=unroll)
    default = dict(asplit=1, swap=0, gm=1, unroll=1)
    return {**cfg, **{k: v for k, v in extra.items() if v != default[k]}}


REF = dict(kind="file", path="solutions/quant_matmul.py")
# the candidate references, complete files (their wrappers' own tiles): even/odd dots with the reference's
# arithmetic, and the same with the nibble -> float16 by bits
EO_FILES = [dict(kind="file", path="benchmarks/candidates/quant_matmul_eo.py"),
            dict(kind="file", path="benchmarks/candidates/quant_matmul_eo_magic.py")]
# Round 4 (`--set 4`, quant2): benchmarks/quant_sass.py counted the K loop's SASS per weight (triton 3.6, sm_90):
# the reference 9.0 instructions a weight (6.2 integer, 1 I2F), int pipe alone 25 us for the 8192 x 8192 weight;
# kind eo with a split by tl.split 5.9-6.6 (3.4-3.8 integer). Which of them turns fewer instructions into time?
# the shipped reference, the candidate files, batch 3's fastest at M = 16
B4_SMALL = [REF, *EO_FILES, _r(16, 64, 128, 4, a16=1, magic=1)]
for _mode in (1, 2, 0):
    B4_SMALL += [_eo(16, 64, 128, 4, mode=_mode), _eo(16, 64, 128, 8, mode=_mode), _eo(16, 64, 128, 2, mode=_mode),
                 _eo(16, 32, 128, 4, mode=_mode), _eo(16, 32, 128, 8, mode=_mode), _eo(16, 128, 128, 4, mode=_mode),
                 _eo(16, 128, 128, 8, 8, mode=_mode), _eo(16, 64, 128, 4, 2, mode=_mode),
                 _eo(16, 64, 128, 4, 4, 4, mode=_mode), _eo(16, 64, 128, 4, 4, 2, mode=_mode),
                 _eo(16, 64, 64, 8, 4, 4, mode=_mode)]
B4_SMALL += [_eo(16, 64, 128, 4, asplit=0), _eo(16, 64, 128, 4, swap=1), _eo(16, 64, 128, 4, mode=2, swap=1),
             _eo(16, 256, 128, 4, 8), _eo(16, 64, 128, 16), _eo(16, 32, 128, 16, 2), _eo(16, 128, 128, 8, 4, 4),
             _eo(16, 64, 128, 4, unroll=2), _eo(16, 64, 128, 8, unroll=2), _eo(16, 64, 128, 4, mode=2, unroll=2),
             _eo(16, 32, 128, 8, 2, 4), _eo(16, 64, 128, 8, 4, 4), _eo(16, 64, 128, 8, 8),
             _eo(16, 64, 128, 8, 2), _eo(16, 32, 128, 4, 2), _eo(16, 64, 128, 16, 2),
             _eo(16, 64, 128, 8, 2, mode=0), _eo(16, 32, 128, 4, 2, mode=0), _eo(16, 64, 128, 16, 2, mode=0)]
B4_GEMV = [_gv(128, 64, 16, a16=0), _gv(128, 64, 8)]              # batch 3's fastest at M = 1
B4_LARGE = [REF, *EO_FILES, _r(256, 128, 64, 1, 8, 4, magic=1, swap=1, gm=8)]  # batch 3's fastest fused at M = 4096
for _swap in (0, 1):
    B4_LARGE += [_eo(256, 128, 64, 1, 8, 4, swap=_swap, gm=8), _eo(256, 128, 64, 1, 8, 3, swap=_swap, gm=8),
                 _eo(128, 256, 64, 1, 8, 3, swap=_swap, gm=8), _eo(128, 256, 64, 1, 8, 4, swap=_swap, gm=8),
                 _eo(128, 128, 64, 1, 4, 4, swap=_swap, gm=8), _eo(256, 128, 128, 1, 8, 3, swap=_swap, gm=8),
                 _eo(256, 128, 64, 1, 8, 4, mode=0, swap=_swap, gm=8)]
B4_LARGE += [_eo(128, 256, 128, 1, 8, 3, gm=8), _eo(128, 128, 128, 1, 8, 3, gm=8), _eo(256, 128, 64, 1, 8, 5, gm=8),
             _eo(128, 256, 64, 1, 8, 4, gm=8, unroll=2), _eo(256, 64, 64, 1, 8, 4, gm=8),
             _eo(128, 256, 64, 1, 8, 3, mode=0, gm=8)]
B4_MID = [REF, *EO_FILES, _r(64, 64, 128, 1, 4, 4, magic=1), _eo(64, 64, 128), _eo(64, 64, 128, 1, 4, 4),
          _eo(32, 64, 128, 2),
          _eo(64, 128, 128, 2), _eo(16, 64, 128, 4), _eo(64, 64, 128, mode=2), _eo(128, 128, 64, 1, 4, 4, gm=8),
          _eo(64, 128, 64, 1, 4, 4)]
B4_CONFIGS = {16: B4_SMALL, 1: B4_SMALL + B4_GEMV, 4096: B4_LARGE, 128: B4_MID}
# `--set 4b` (batch K=2): set 4's kind-eo rows ran with a's strided halves (ASPLIT defaulted to 0 while the labels
# assumed 1), so only the two candidate files measured the split a. Again with the split, beside the files: the
# reference (since round 4 the even/odd kernel), the previous reference and the by-bits file.
PREV = dict(kind="file", path="benchmarks/candidates/quant_matmul_k2.py")
MAGIC_FILE = dict(kind="file", path="benchmarks/candidates/quant_matmul_eo_magic.py")
B4B_SMALL = [REF, PREV, MAGIC_FILE, _eo(16, 64, 128, 4, mode=2), _eo(16, 64, 128, 8, mode=2)]
for _mode in (0, 1):
    B4B_SMALL += [_eo(16, 64, 128, 4, mode=_mode), _eo(16, 64, 128, 8, mode=_mode), _eo(16, 64, 128, 2, mode=_mode),
                  _eo(16, 128, 128, 4, mode=_mode), _eo(16, 128, 128, 8, 8, mode=_mode),
                  _eo(16, 32, 128, 8, mode=_mode), _eo(16, 64, 128, 4, 2, mode=_mode),
                  _eo(16, 64, 128, 4, 4, 4, mode=_mode), _eo(16, 64, 128, 16, mode=_mode),
                  _eo(16, 256, 128, 4, 8, mode=_mode)]
B4B_LARGE = [REF, PREV, MAGIC_FILE, _r(256, 128, 64, 1, 8, 4, magic=1, swap=1, gm=8)]
for _mode in (0, 1):
    B4B_LARGE += [_eo(256, 128, 64, 1, 8, 4, mode=_mode, swap=1, gm=8), _eo(256, 128, 64, 1, 8, 4, mode=_mode, gm=8),
                  _eo(128, 256, 64, 1, 8, 3, mode=_mode, gm=8), _eo(128, 256, 64, 1, 8, 3, mode=_mode, swap=1, gm=8)]
B4B_CONFIGS = {16: B4B_SMALL, 1: B4B_SMALL, 4096: B4B_LARGE}



def _dqg(bm, bn, bk, warps, stages, gm=8, dr=32, dn=128, dwarps=4):
    """Kind "dqg" (round 5, benchmarks/quant_r5_kernels.py): a Triton dequant kernel writes the float16 (K, N) weight
    once ((DR packed rows, DN columns) a program), then a Triton float16 GEMM (tutorial 03, grouped order GROUP_M)."""
    cfg = dict(kind="dqg", BM=bm, BN=bn, BK=bk, warps=warps, stages=stages, gm=gm)
    extra = dict(DR=dr, DN=dn, dwarps=dwarps)
    default = dict(DR=32, DN=128, dwarps=4)
    return {**cfg, **{k: v for k, v in extra.items() if v != default[k]}}


def _s5(bm, bn, bk, sk=1, warps=4, stages=3, pipe=0, spart=0, reduce=0, words=0, dot=1, unroll=0):
    """Kind "s5" (round 5): the even/odd kernel by bits (kind eo mode 1) with tl.range(num_stages=pipe), the scale on
    the partial product (spart), split-K by float32 partials and a sum launch (reduce), int32-word loads with the
    float16 bit patterns built two lanes a 32-bit op (words), broadcast multiply-add instead of tl.dot (dot=0)."""
    cfg = dict(kind="s5", BM=bm, BN=bn, BK=bk, SPLIT_K=sk, warps=warps, stages=stages)
    extra = dict(pipe=pipe, spart=spart, reduce=reduce, words=words, dot=dot, unroll=unroll)
    return {**cfg, **{k: v for k, v in extra.items() if v != (1 if k == "dot" else 0)}}


# Round 5 (`--set 5`, quant3). A (M >= 128): dequantise once into a float16 (K, N) scratch, then a Triton GEMM, beside
# the fused kernels and cuBLAS, at M = 128, 1024, 2048, 4096 (the crossover from measurement). B (M <= 16): kind s5.
DQ_ONLY = [dict(kind="dq_only"), dict(kind="dq_only", DR=64), dict(kind="dq_only", DN=256), dict(kind="dq_only",
                                                                                               DR=16, DN=256)]
B5_DQG_BIG = [_dqg(128, 256, 64, 8, 3), _dqg(128, 256, 64, 8, 4), _dqg(128, 128, 64, 4, 4), _dqg(128, 128, 64, 8, 4),
              _dqg(256, 128, 64, 8, 3), _dqg(128, 128, 128, 8, 3), _dqg(128, 256, 64, 8, 3, gm=4),
              _dqg(64, 256, 64, 4, 4), _dqg(128, 128, 64, 4, 5), _dqg(128, 256, 64, 8, 3, dr=64),
              _dqg(128, 256, 64, 8, 3, dn=256), _dqg(128, 256, 64, 8, 3, dr=16, dn=256)]
B5_DQG_MID = [_dqg(128, 256, 64, 8, 3), _dqg(128, 128, 64, 4, 4), _dqg(128, 128, 64, 8, 4), _dqg(64, 128, 64, 4, 4),
              _dqg(128, 64, 64, 4, 4), _dqg(64, 64, 64, 4, 4), _dqg(64, 128, 128, 4, 3)]
# REF (solutions/quant_matmul.py) takes its large-M path from LARGE_M on; the fused reference kernel's own tiles are
# the kind-eo mode-0 rows (the same kernel, the same program order)
B5_FUSED = [REF, MAGIC_FILE, _eo(256, 128, 64, 1, 8, 4, mode=0), _eo(256, 128, 64, 1, 8, 4, mode=1, gm=8),
            _eo(128, 256, 64, 1, 8, 3, mode=1, gm=8)]
B5_FUSED_MID = [REF, MAGIC_FILE, _eo(64, 64, 128, mode=0), _eo(64, 64, 128, mode=1),
                _eo(128, 128, 64, 1, 4, 4, mode=1, gm=8), _eo(64, 128, 64, 1, 4, 4, mode=1)]
B5_SMALL = [REF, MAGIC_FILE, _eo(16, 64, 128, 8, mode=1), _eo(16, 64, 128, 4, 4, 4, mode=1),
            _s5(16, 64, 128, 4), _s5(16, 64, 128, 8), _s5(16, 64, 128, 4, 4, 4),
            _s5(16, 64, 128, 4, pipe=3), _s5(16, 64, 128, 4, pipe=4), _s5(16, 64, 128, 8, pipe=4),
            _s5(16, 64, 128, 8, pipe=2), _s5(16, 64, 128, 4, spart=1), _s5(16, 64, 128, 8, spart=1),
            _s5(16, 64, 128, 8, reduce=1), _s5(16, 64, 128, 16, reduce=1), _s5(16, 64, 128, 16),
            _s5(16, 32, 128, 16, reduce=1), _s5(16, 64, 128, 32, reduce=1), _s5(16, 128, 128, 16, 8, reduce=1),
            _s5(16, 128, 128, 4, 8), _s5(16, 128, 128, 8, 8), _s5(16, 256, 128, 4, 8), _s5(16, 256, 128, 8, 8),
            _s5(16, 128, 128, 8, 4), _s5(16, 128, 128, 8, 8, 4), _s5(16, 64, 64, 8, 4, 4), _s5(16, 32, 128, 8, 2),
            _s5(16, 64, 128, 4, words=1), _s5(16, 64, 128, 8, words=1), _s5(16, 128, 128, 8, 8, words=1),
            _s5(16, 64, 128, 8, 4, 4, words=1, spart=1),
            _s5(16, 64, 128, 4, 4, 2), _s5(16, 64, 128, 8, 4, 2), _s5(16, 64, 128, 8, 4, 5), _s5(16, 64, 128, 4, 4, 5),
            _s5(16, 64, 128, 4, unroll=2), _s5(16, 64, 128, 8, unroll=2), _s5(16, 64, 128, 8, 4, 4, spart=1),
            _s5(16, 64, 128, 16, 4, 4, spart=1, reduce=1), _s5(16, 128, 128, 8, 8, 4, spart=1)]
# broadcast multiply-add at M = 1: quant_sass.py --r5 counts 7.7 instructions a weight (each float16 weight widened
# to float32 by HADD2.F32), against 5.3 for the dot; timed once to say so
B5_TINY = [_s5(1, 64, 128, 8, dot=0), _s5(1, 128, 128, 16, 4, dot=0, spart=1), _s5(1, 256, 128, 8, 8, dot=0, spart=1)]
B5_CONFIGS = {16: B5_SMALL, 1: B5_SMALL + B5_TINY, 4096: B5_FUSED + B5_DQG_BIG + DQ_ONLY,
              2048: B5_FUSED + B5_DQG_BIG[:7], 1024: B5_FUSED_MID + B5_DQG_BIG[:4] + B5_DQG_MID[3:],
              128: B5_FUSED_MID + B5_DQG_MID}
NOT_A_PRODUCT = ("dq_only",)  # timed for their share, not checked against the product
# `--set 5b` (batch K=2): the final reference file at every M, beside the round-4 reference (the fused even/odd kernel
# at every M: benchmarks/candidates/quant_matmul_eo.py) and the by-bits file
EO_FILE = dict(kind="file", path="benchmarks/candidates/quant_matmul_eo.py")
B5B_CONFIGS = {m: [REF, EO_FILE, MAGIC_FILE] for m in (1, 16, 128, 256, 512, 1024, 2048, 4096)}
for _m in (128, 256, 512):  # the crossover: the reference's GEMM tiles below M = 1024, and the others
    B5B_CONFIGS[_m] += [_dqg(128, 128, 64, 4, 4), _dqg(128, 256, 64, 8, 3), _dqg(64, 128, 128, 4, 3),
                        _eo(64, 64, 128, mode=1)]
for _m in (1024, 4096):  # the reference's GEMM again as a kind-dqg row (its spread), and the 128x128 tiles
    B5B_CONFIGS[_m] += [_dqg(128, 256, 64, 8, 3), _dqg(128, 128, 64, 4, 4)]

def _d(kind, bn, splits, warps=4, stages=2):
    return dict(kind=kind, BLOCK_N=bn, splits=splits, warps=warps, stages=stages)


DECODE_CONFIGS = [
    _d("head", 32, 16, 4, 3),  # the current reference
    _d("head", 64, 16, 4, 2), _d("head", 64, 8, 4, 3), _d("head", 128, 8, 8, 2), _d("head", 32, 32, 2, 3),
    _d("head", 64, 16, 8, 3), _d("head", 128, 16, 4, 2),
    _d("group", 32, 8, 4, 2), _d("group", 64, 8, 4, 2), _d("group", 64, 4, 4, 3), _d("group", 128, 4, 8, 2),
    _d("group", 64, 16, 4, 3), _d("group", 128, 8, 4, 2), _d("group", 32, 16, 4, 3), _d("group", 128, 16, 8, 3),
]
DECODE_SHAPES = ((32, 32, 32, 4096, 128, 16), (32, 32, 8, 4096, 128, 16))


def label(cfg: dict) -> str:
    return " ".join(f"{k}={v}" if k != "kind" else str(v) for k, v in cfg.items())


# -- inputs ------------------------------------------------------------------------------------------------------
def quant_inputs(M, N=N_K, K=N_K, device="cuda", seed=0):
    """(a, w_packed, scales, w * s as float16): int4 weights in -8..7, group GROUP, a ~ N(0, 1)."""
    import torch

    from drills.serving_specs import _pack_int4
    g = torch.Generator(device=device).manual_seed(seed)
    w4 = torch.randint(-8, 8, (K, N), generator=g, device=device)
    scales = (torch.rand(K // GROUP, N, generator=g, device=device) * 0.02 + 0.005).half()
    a = torch.randn(M, K, generator=g, device=device, dtype=torch.float16)
    w_deq = (w4.half() * scales.repeat_interleave(GROUP, dim=0)).contiguous()
    return a, _pack_int4(w4), scales, w_deq


def decode_inputs(shape):
    import torch
    B, H, H_kv, L, D, page = shape
    g = torch.Generator(device="cuda").manual_seed(0)
    pages = L // page
    table = torch.randperm(B * pages, generator=g, device="cuda").view(B, pages).to(torch.int32)
    q = torch.randn(B, H, D, generator=g, device="cuda", dtype=torch.float16)
    k = torch.randn(B * pages, page, H_kv, D, generator=g, device="cuda", dtype=torch.float16)
    v = torch.randn(B * pages, page, H_kv, D, generator=g, device="cuda", dtype=torch.float16)
    lens = torch.full((B,), L, dtype=torch.int32, device="cuda")
    return q, k, v, table, lens


# -- compile in workers --------------------------------------------------------------------------------------------
def _warm(job):
    import torch

    from benchmarks import serving_candidates as sc
    case, key, cfg = job
    t0 = time.perf_counter()
    try:
        if case == "quant":
            a, wp, s, _ = quant_inputs(key)
            sc.w4a16(a, wp, s, GROUP, cfg)
        else:
            sc.decode(*decode_inputs(key), cfg)
        torch.cuda.synchronize()
        return job, None, time.perf_counter() - t0
    except Exception as e:  # noqa: BLE001
        return job, f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}", time.perf_counter() - t0


def jobs_of(case):
    if case == "quant":
        return [("quant", m, c) for m in QUANT_M for c in QUANT_CONFIGS[m]]
    return [("decode", s, c) for s in DECODE_SHAPES for c in DECODE_CONFIGS]


# -- timing ----------------------------------------------------------------------------------------------------------
def time_rows(fns: dict, rounds: int, graphed: bool = False) -> dict:
    """{row: [ms per round]}, rows alternating within each round: do_bench medians, or (graphed) CUDA-graph replays
    (grader.speed.timing.bench_graphed_ms: device time without the host); a row that cannot be captured is said
    and dropped."""
    from grader.speed.timing import bench_graphed_ms, bench_ms
    per = {k: [] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            if k not in per:
                continue
            try:
                per[k].append(bench_graphed_ms(f) if graphed else bench_ms(f))
            except Exception as e:  # noqa: BLE001 - said, the other rows go on
                print(f"  not capturable ({type(e).__name__}: {str(e)[:80]}): {k}", flush=True)
                del per[k]
    return per


def rel_err(out, exp) -> float:
    return float((out.float() - exp).abs().max() / exp.abs().max().clamp_min(1e-6))


def table(title, per: dict, base: str, extra=None):
    print(f"\n{title}  (ratio = {base} / row)")
    rows = sorted(per.items(), key=lambda kv: statistics.median(kv[1]))
    b = statistics.median(per[base])
    for k, v in rows:
        med = statistics.median(v)
        x = f"  {extra(k, med)}" if extra else ""
        print(f"  {med * 1e3:9.1f} us  [{min(v) * 1e3:8.1f} .. {max(v) * 1e3:8.1f}]  ratio {b / med:6.3f}{x}  {k}",
              flush=True)


def best_alt_file(best: dict, out_dir) -> dict:
    """The alternative reference with, for each M class, its fastest alt schedule of this run: TILES by M (M <= 16:
    the best at 16; below 2048: the best at 128; above: the best at 4096) and the GEMV at M = 1 when a GEMV schedule
    beat every alt_awq one there. Written as out_dir/quant_matmul_awq_best.py (complete: it is graded and calibrated
    next, and is the file to copy to solutions/)."""
    from benchmarks import serving_candidates as sc
    from benchmarks.constants import write_with_constants
    consts, picked = {}, {}
    awq = {m: min(((ms, c) for ms, c in best.get(m, []) if c["kind"] == "alt_awq"), key=lambda x: x[0], default=None)
           for m in QUANT_M}
    from benchmarks.constants import load_module
    src = ROOT / "benchmarks" / "candidates" / "quant_matmul_awq.py"
    default = dict(load_module(src, "quant_matmul_awq_defaults").TILES)  # the file's own rows (not the sweep's)
    rows = []
    for bound, m in ((16, 16), (2047, 128), (None, 4096)):
        if awq.get(m):
            rows.append((bound, sc.alt_tiles(awq[m][1])))
            picked[f"M={m}"] = (awq[m][0] * 1e3, label(awq[m][1]))
        else:  # not measured (a batch cut short): the file's default row
            rows.append((bound, default[bound]))
    consts["TILES"] = tuple(rows)
    gemv = min(((ms, c) for ms, c in best.get(1, []) if c["kind"] == "alt_gemv"), key=lambda x: x[0], default=None)
    if gemv and (awq.get(1) is None or gemv[0] < awq[1][0]):
        consts["GEMV_MAX_M"], consts["GEMV_TILES"] = 1, sc.alt_gemv_tiles(gemv[1])
        picked["M=1"] = (gemv[0] * 1e3, label(gemv[1]))
    else:
        consts["GEMV_MAX_M"] = 0
        if awq.get(1):
            picked["M=1 (alt_awq, the M <= 16 row is used)"] = (awq[1][0] * 1e3, label(awq[1][1]))
    path = write_with_constants(src, Path(out_dir) / "quant_matmul_awq_best.py", consts)
    print(f"\nbest alternative-reference schedules (us): {picked}\n  -> {path} with {consts}", flush=True)
    return {"file": str(path), "constants": {k: repr(v) for k, v in consts.items()}, "picked": picked}


def graphed_rows(per: dict, fns: dict, top: int = 6) -> None:
    """The `top` fastest rows and cuBLAS again as CUDA-graph replays (grader.speed.timing.bench_graphed_ms: device
    time, no host launch cost), printed beside their do_bench medians."""
    from grader.speed.timing import bench_graphed_ms
    ranked = sorted(per, key=lambda k: statistics.median(per[k]))
    keep = [CUBLAS_ROW] + [k for k in ranked if k != CUBLAS_ROW][:top]
    print("  CUDA-graph replays (device time only) beside do_bench:")
    for k in keep:
        try:
            g = bench_graphed_ms(fns[k])
            print(f"    graphed {g * 1e3:8.1f} us   do_bench {statistics.median(per[k]) * 1e3:8.1f} us  {k}", flush=True)
        except Exception as e:  # noqa: BLE001 - a call that cannot be captured is said, not fatal
            print(f"    graphed: not capturable ({type(e).__name__}: {str(e)[:80]})  {k}", flush=True)


CUBLAS_ROW = "cublas fp16 (dequantised weight)"


def run_quant(rounds, bad, out_dir=None, graphed_small=False, strict=False):
    """strict (set 4): a row is wrong when any element misses the drill's own tolerance, |c - c32| <= 1e-3 x
    (|a| @ |w s|) (drills/serving_specs.py's W4_SPEC), instead of a 2 % relative error of the largest element."""
    import torch

    from benchmarks import serving_candidates as sc
    from drills.serving_specs import _w4a16_eager
    best, results, methods = {}, {}, {}
    for M in QUANT_M:
        a, wp, s, w_deq = quant_inputs(M)
        exp = a.float() @ w_deq.float()
        fns = {"cublas fp16 (dequantised weight)": lambda: torch.matmul(a, w_deq),
               "eager dequant-then-matmul": lambda: _w4a16_eager(a, wp, s, GROUP),
               "triton dequant kernel + cublas": lambda: sc.dequant_then_cublas(a, wp, s, GROUP)}
        skip = set()
        for cfg in QUANT_CONFIGS[M]:
            if ("quant", M, label(cfg)) in bad:
                continue
            fns[label(cfg)] = (lambda c=cfg: sc.w4a16(a, wp, s, GROUP, c))
            if cfg["kind"] in NOT_A_PRODUCT:
                skip.add(label(cfg))
        bound = 1e-3 * (a.float().abs() @ w_deq.float().abs()) if strict else None
        for k in list(fns):
            if k in skip:
                continue
            out = fns[k]()
            err = rel_err(out, exp)
            if strict:
                worst = float(((out.float() - exp).abs() / bound).max())
                if worst > 1.0 or not torch.isfinite(out).all():
                    print(f"  WRONG M={M} {k}: error {worst:.2f} x the drill's tolerance (relative {err:.2e})")
                    del fns[k]
            elif err > 2e-2:
                print(f"  WRONG M={M} {k}: relative error {err:.2e}")
                del fns[k]
        del bound
        extra = None
        for k in skip & set(fns):  # the dequant kernel alone: its float16 weight must be the spec's w * s
            w16 = fns[k]()
            if not torch.equal(w16, w_deq):
                print(f"  WRONG M={M} {k}: max |w16 - w_deq| {float((w16.float() - w_deq.float()).abs().max()):.2e}")
                del fns[k]
            del w16
        if M <= 16 and graphed_small:  # every row as graph replays (the table), one do_bench round beside it
            per = time_rows(fns, rounds, graphed=True)
            plain = time_rows(fns, 1)
            extra = (lambda k, med: f"do_bench {plain[k][0] * 1e3:7.1f} us" if plain.get(k) else "")
        else:
            per = time_rows(fns, rounds)
            if M <= 16:  # device time without the host: does the launch overhead set the floor at small M?
                graphed_rows(per, fns)
        results[M] = {k: [x * 1e3 for x in v] for k, v in per.items()}
        best.setdefault(M, []).extend((statistics.median(per[label(c)]), c) for c in QUANT_CONFIGS[M]
                                      if c["kind"].startswith("alt_") and label(c) in per)
        floor_us = (M * N_K * 2 + N_K // 2 * N_K + N_K // GROUP * N_K * 2 + M * N_K * 2) / 4.8e12 * 1e6
        how = "CUDA-graph replays (device time)" if extra else "do_bench"
        methods[M] = how
        table(f"quant M={M} N=K={N_K} group {GROUP}, {how}; bytes floor {floor_us:.1f} us at 4.8 TB/s", per,
              "cublas fp16 (dequantised weight)",
              lambda k, med: f"TFLOPS {2 * M * N_K * N_K / (med / 1e3) / 1e12:6.1f}"
                             + (f"  {extra(k, med)}" if extra else ""))
        del a, wp, s, w_deq
        torch.cuda.empty_cache()
        if out_dir:  # after every M: a batch cut short still leaves the schedules measured so far
            import json
            Path(out_dir).mkdir(parents=True, exist_ok=True)
            summary = best_alt_file(best, out_dir)
            (Path(out_dir) / "quant_sweep.json").write_text(json.dumps(
                {"device": torch.cuda.get_device_name(), "us_per_round": {str(m): r for m, r in results.items()},
                 "method": {str(m): v for m, v in methods.items()},
                 "best": summary}, indent=1))


def run_decode(rounds, bad):
    import torch
    import torch.nn.functional as F

    from benchmarks import serving_candidates as sc
    from drills.serving_specs import _decode_eager
    for shape in DECODE_SHAPES:
        B, H, H_kv, L, D, page = shape
        q, k, v, table_, lens = decode_inputs(shape)
        k_c = k[table_.long()].reshape(B, L, H_kv, D).transpose(1, 2).contiguous()
        v_c = v[table_.long()].reshape(B, L, H_kv, D).transpose(1, 2).contiguous()
        gqa = {"enable_gqa": True} if H != H_kv else {}

        def eager():
            kk = k[table_.long()].reshape(B, L, H_kv, D).transpose(1, 2)
            vv = v[table_.long()].reshape(B, L, H_kv, D).transpose(1, 2)
            return F.scaled_dot_product_attention(q[:, :, None, :], kk, vv, **gqa)[:, :, 0]

        fns = {"sdpa contiguous": lambda: F.scaled_dot_product_attention(q[:, :, None, :], k_c, v_c, **gqa)[:, :, 0],
               "eager gather + sdpa": eager,
               "spec eager (gather + sdpa, seq_lens mask)": lambda: _decode_eager(q, k, v, table_, lens)}
        for cfg in DECODE_CONFIGS:
            if ("decode", shape, label(cfg)) in bad:
                continue
            fns[label(cfg)] = (lambda c=cfg: sc.decode(q, k, v, table_, lens, c))
        exp = F.scaled_dot_product_attention(q.float()[:, :, None, :], k_c.float(), v_c.float(), **gqa)[:, :, 0]
        for name in list(fns):
            err = rel_err(fns[name](), exp)
            if err > 2e-2:
                print(f"  WRONG {shape} {name}: relative error {err:.2e}")
                del fns[name]
        per = time_rows(fns, rounds)
        nbytes = 2 * B * L * H_kv * D * 2
        table(f"decode (B,H,H_kv,L,D,page)={shape}; KV {nbytes / 1e9:.2f} GB", per, "sdpa contiguous",
              lambda name, med: f"TB/s {nbytes / (med / 1e3) / 1e12:5.2f}  x eager "
                                f"{statistics.median(per['eager gather + sdpa']) / med:5.2f}")
        del q, k, v, k_c, v_c
        torch.cuda.empty_cache()


DRY_SHAPES = {1: (1, 72, 256), 16: (16, 129, 384), 128: (130, 72, 256), 256: (257, 72, 256), 512: (300, 72, 256),
              1024: (257, 264, 256),
              2048: (130, 264, 256), 4096: (130, 264, 256)}


def dry_quant() -> int:
    """Each quant candidate at its M class's small shape, group 128 and (alt kinds) group 32, on the CPU."""
    import torch

    from benchmarks import serving_candidates as sc
    from drills.serving_specs import _pack_int4
    bad = 0
    seen = set()
    for m_class in QUANT_M:
        for cfg in QUANT_CONFIGS[m_class]:
            M, N, K = DRY_SHAPES[m_class]
            if (cfg["kind"] in ("gv", "rw") or cfg.get("words")) and N % 4:  # the word kinds read 4 columns per int32
                N += 4 - N % 4
            key = (label(cfg), M)
            if key in seen:
                continue
            seen.add(key)
            worst = 0.0
            several = cfg["kind"].startswith("alt_") or cfg["kind"] in ("r", "gv", "rw", "eo", "file", "dqg", "s5")
            groups = (128, 32) if several else (128,)
            for group in groups:
                k = K if group == 128 else 160
                g = torch.Generator().manual_seed(M + k)
                w4 = torch.randint(-8, 8, (k, N), generator=g)
                scales = (torch.rand(k // group, N, generator=g) * 0.02 + 0.005).half()
                a = torch.randn(M, k, generator=g).half()
                exp = a.double() @ (w4.double() * scales.double().repeat_interleave(group, dim=0))
                if cfg["kind"] in NOT_A_PRODUCT:  # the dequant kernel alone: the float16 weight itself
                    exp = (w4.half() * scales.repeat_interleave(group, dim=0)).double()
                try:
                    out = sc.w4a16(a, _pack_int4(w4), scales, group, cfg)
                    worst = max(worst, float((out.double() - exp).abs().max() / exp.abs().max()))
                except Exception as e:  # noqa: BLE001
                    print(f"  dry ERROR M={M} group {group} {label(cfg)}: {type(e).__name__}: {e}"[:300])
                    worst = float("inf")
            ok = worst <= 2e-3
            bad += not ok
            print(f"  dry {'ok  ' if ok else 'WRONG'} M={M} N={N} K={K} {label(cfg)}: rel err {worst:.1e}",
                  flush=True)
    print(f"dry: {len(seen)} candidates, {bad} wrong")
    # the winner file's writer, fed the candidates in list order as if the last alt one of each M had won
    import tempfile

    from benchmarks.constants import load_with_constants
    fake = {m: [(-i, c) for i, c in enumerate(QUANT_CONFIGS[m]) if c["kind"].startswith("alt_")] for m in QUANT_M}
    with tempfile.TemporaryDirectory() as d:
        written = best_alt_file(fake, d)["file"]
        fn = load_with_constants(Path(written), "matmul_w4a16", {})
        for M, N, K in DRY_SHAPES.values():
            g = torch.Generator().manual_seed(7)
            w4 = torch.randint(-8, 8, (K, N), generator=g)
            scales = (torch.rand(K // 128, N, generator=g) * 0.02 + 0.005).half()
            a = torch.randn(M, K, generator=g).half()
            exp = a.double() @ (w4.double() * scales.double().repeat_interleave(128, dim=0))
            err = float((fn(a, _pack_int4(w4), scales, 128).double() - exp).abs().max() / exp.abs().max())
            print(f"  dry winner file at ({M}, {N}, {K}): rel err {err:.1e}")
            bad += err > 2e-3
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", choices=("quant", "decode"), required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=12)
    ap.add_argument("--out", help="quant: where quant_sweep.json and quant_matmul_awq_best.py go")
    ap.add_argument("--dry", action="store_true", help="CPU: check the quant candidates under the interpreter")
    ap.add_argument("--set", choices=("2", "3", "3b", "3c", "4", "4b", "5", "5b"), default="2",
                    help="quant: batch 2's candidates, batch 3's (kind r; M <= 16 timed as CUDA-graph replays), or "
                         "3b (M = 4096: the reference's tiles without and with the bit trick), or 3c (M = 1 and 16: "
                         "split-K by float32 vs float16 atomics under do_bench)")
    a = ap.parse_args()
    global QUANT_M
    if a.set == "3":
        QUANT_CONFIGS.clear()
        QUANT_CONFIGS.update(B3_CONFIGS)
        QUANT_M = (1, 16, 4096, 128)  # the goals first: a batch cut short loses M = 128 (no goal) first
    elif a.set == "4":
        QUANT_CONFIGS.clear()
        QUANT_CONFIGS.update(B4_CONFIGS)
        QUANT_M = (16, 1, 4096, 128)  # the goals first: a batch cut short loses M = 128 (no goal) first
    elif a.set == "5":
        QUANT_CONFIGS.clear()
        QUANT_CONFIGS.update(B5_CONFIGS)
        QUANT_M = (4096, 16, 1, 128, 2048, 1024)  # the two goals first
    elif a.set == "5b":
        QUANT_CONFIGS.clear()
        QUANT_CONFIGS.update(B5B_CONFIGS)
        QUANT_M = (16, 1, 4096, 256, 512, 128, 1024, 2048)
    elif a.set == "4b":
        QUANT_CONFIGS.clear()
        QUANT_CONFIGS.update(B4B_CONFIGS)
        QUANT_M = (16, 1, 4096)
    elif a.set == "3c":
        QUANT_CONFIGS.clear()
        QUANT_CONFIGS.update({1: B3C_SMALL + [_gv(128, 64, 8), _gv(128, 64, 8, a16=0)], 16: B3C_SMALL})
        QUANT_M = (16, 1)
    elif a.set == "3b":
        QUANT_CONFIGS.clear()
        QUANT_CONFIGS.update({4096: B3B_LARGE})
        QUANT_M = (4096,)
    if a.dry:
        os.environ["TRITON_INTERPRET"] = "1"
        return dry_quant()
    import multiprocessing as mp

    import torch
    import triton
    if not torch.cuda.is_available():
        print("serving_sweep.py needs a CUDA GPU")
        return 2
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}", flush=True)
    t0 = time.perf_counter()
    bad = set()
    with ProcessPoolExecutor(a.jobs, mp_context=mp.get_context("spawn")) as ex:
        for (case, key, cfg), err, s in ex.map(_warm, jobs_of(a.case)):
            if err:
                bad.add((case, key, label(cfg)))
                print(f"  compile/run failed: {case} {key} {label(cfg)}: {err}", flush=True)
    print(f"compiled {len(jobs_of(a.case))} kernels in {time.perf_counter() - t0:.1f} s "
          f"({len(bad)} failed)", flush=True)
    if a.case == "quant":
        run_quant(a.rounds, bad, a.out, graphed_small=a.set in ("3", "4", "4b", "5", "5b"),
                  strict=a.set in ("4", "4b", "5", "5b"))
    else:
        run_decode(a.rounds, bad)
    print(f"\ntotal {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
