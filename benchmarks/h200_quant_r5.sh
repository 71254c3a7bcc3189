#!/usr/bin/env bash
# Issue 22's quant-matmul speed goals, round 5 (quant3; the K=1 mailbox batch; at most 145 s of wall time):
#   cd CHECKOUT && export PYTHONPATH=$PWD && OUT=DIR bash benchmarks/h200_quant_r5.sh > DIR/log.txt 2>&1
# benchmarks/serving_sweep.py --case quant --set 5, N = K = 8192, group 128:
#  A. M in {4096, 128, 2048, 1024}: kind "dqg" of benchmarks/quant_r5_kernels.py (a Triton kernel dequantises the
#     packed weight once into a float16 (K, N) scratch, then a Triton tl.dot GEMM in tutorial 03's grouped order,
#     tiles swept) beside the fused kernels (the reference file, eo by bits, grouped), cuBLAS on the float16 weight,
#     a Triton dequant + cuBLAS, and the dequant kernel alone (its share; its output checked bit for bit);
#  B. M in {16, 1}: kind "s5" (eo by bits with tl.range(num_stages=), the scale on the partial product, split-K by
#     float32 partials + a sum launch, BLOCK_N 128-256 with 8 warps, int32-word loads, broadcast FMA at M = 1).
# Every row checked first against float32 torch at the drill's tolerance (1e-3 x |a| @ |w s| per element); M <= 16
# CUDA-graph replays (3 alternating rounds) with one do_bench round beside; M >= 128 do_bench, 3 alternating rounds.
# Writes $OUT/quant_sweep.json after every M. Then `drill grade solutions/quant_matmul.py --device cuda` (what is left).
set -u
export PYTHONPATH="${PYTHONPATH:-$PWD}" PYTHONUNBUFFERED=1 DRILL_HOME="${OUT:?set OUT}/drill_home"
export TRITON_CACHE_DIR="$OUT/triton_cache"
PY="${PY:-python3}"
mkdir -p "$OUT"
START=$(date +%s)
left() { echo $(( ${TOTAL_S:-145} - ($(date +%s) - START) )); }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm --format=csv,noheader 2>/dev/null
$PY -c "import torch, triton; print(torch.__version__, triton.__version__)"
timeout $(( $(left) - 35 )) $PY benchmarks/serving_sweep.py --case quant --set 5 --rounds 3 --jobs 15 --out "$OUT" \
  2>&1 | grep -v Warning
echo "sweep rc=${PIPESTATUS[0]} at $(( $(date +%s) - START )) s"
# the reference as committed (its large-M path from LARGE_M on), graded on CUDA as a learner's file would be
timeout $(( $(left) - 2 )) $PY cli.py grade solutions/quant_matmul.py --device cuda 2>&1 | grep -v Warning | head -40
echo "grade rc=${PIPESTATUS[0]} at $(( $(date +%s) - START )) s"
rm -rf "$DRILL_HOME" "$TRITON_CACHE_DIR"
