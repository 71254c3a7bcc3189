#!/usr/bin/env bash
# Issue 22's quant-matmul speed goals, speed batch 3 step 1 (the K=1 mailbox batch; at most 95 s of wall time):
#   cd CHECKOUT && export PYTHONPATH=$PWD && OUT=DIR bash benchmarks/h200_quant_b3.sh > DIR/log.txt 2>&1
# 1. benchmarks/serving_sweep.py --case quant --set 3: kind "r" (the shipped reference's structure with one switch
#    per change: the scale as one row per K step on the float16 weight (GPTQ) or on the float32 partial (AWQ), each
#    byte loaded once, the nibble to float16 by bits, SWAP = tl.dot(w^T, a^T), grouped program order, split-K by
#    float32 or float16 atomics), kinds "gv" / "rw" (the packed weight read as int32 words, 8 nibbles per load: a
#    GEMV without tl.dot at M = 1, 8 dots per step at M <= 16), beside the shipped reference, batch 2's candidate
#    and cuBLAS on the float16 weight,
#    M in {1, 16, 128, 4096}, N = K = 8192, group 128. Every row checked against float32 torch first; M <= 16 timed
#    as CUDA-graph replays (device time, 3 alternating rounds) with one do_bench round beside; M >= 128 do_bench,
#    3 alternating rounds. Writes $OUT/quant_sweep.json.
set -u
export PYTHONPATH="${PYTHONPATH:-$PWD}" PYTHONUNBUFFERED=1 DRILL_HOME="${OUT:?set OUT}/drill_home"
export TRITON_CACHE_DIR="$OUT/triton_cache"
PY="${PY:-python3}"
mkdir -p "$OUT"
START=$(date +%s)
left() { echo $(( ${TOTAL_S:-95} - ($(date +%s) - START) )); }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm --format=csv,noheader 2>/dev/null
$PY -c "import torch, triton; print(torch.__version__, triton.__version__)"
timeout $(( $(left) - 3 )) $PY benchmarks/serving_sweep.py --case quant --set 3 --rounds 3 --jobs 14 --out "$OUT" \
  2>&1 | grep -v Warning
echo "sweep rc=${PIPESTATUS[0]} at $(( $(date +%s) - START )) s"
rm -rf "$DRILL_HOME" "$TRITON_CACHE_DIR"
