#!/usr/bin/env bash
# Issue 22's quant-matmul gates, calibrated on the H200 (speed batch 3, the K=2 mailbox batch). About 120 s of wall
# time: 20 runs of the grader's own gate for three versions (~60 s, each run 5 rounds x 3 rows of do_bench) and 10
# runs of the other two gates (M = 1 and M = 4096, ~30 s), plus compiles:
#   cd CHECKOUT && export PYTHONPATH=$PWD && OUT=DIR bash benchmarks/h200_quant_gate.sh > DIR/log.txt 2>&1
# 1. benchmarks/gate_calibration.py: `drill grade --device cuda`'s gate (grader.speed.timing.speed_report at the
#    spec's bench_size (16, 8192, 8192), its bar cuBLAS on the float16 weight) 20 times, the versions alternating:
#    the reference, the previous reference (benchmarks/candidates/quant_matmul_previous.py) and the known-slow
#    16x16x16 tiles; runs passing speedup_min and reaching each --factor. Writes $OUT/gate_quant.json.
# 2. benchmarks/serving.py --cases quant --quant-m 1,4096: the reference, the known-slow version, cuBLAS and eager,
#    10 runs; the gates at M = 1 and M = 4096 (QUANT_GATES). Writes $OUT/serving.json.
set -u
export PYTHONPATH="${PYTHONPATH:-$PWD}" PYTHONUNBUFFERED=1 DRILL_HOME="${OUT:?set OUT}/drill_home"
PY="${PY:-python3}"
mkdir -p "$OUT"
START=$(date +%s)
left() { echo $(( ${TOTAL_S:-140} - ($(date +%s) - START) )); }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null
timeout $(( $(left) - 45 )) $PY benchmarks/gate_calibration.py --drill quant-matmul --repeats 20 --budget-s 70 \
  --out "$OUT" --tag quant \
  --version reference=solutions/quant_matmul.py \
  --version previous=benchmarks/candidates/quant_matmul_previous.py \
  --version known-slow=benchmarks/known_slow/quant_matmul_tiny_tiles.py \
  --factor 0.3 --factor 0.4 --factor 0.5 --factor 0.6 --factor 0.8 --factor 1.0 2>&1 | grep -v Warning
echo "gate rc=${PIPESTATUS[0]} at $(( $(date +%s) - START )) s"
timeout $(( $(left) - 3 )) $PY benchmarks/serving.py --cases quant --quant-m 1,4096 --repeats 10 --out "$OUT" \
  2>&1 | grep -v Warning | tail -30
echo "serving rc=${PIPESTATUS[0]} at $(( $(date +%s) - START )) s"
rm -rf "$DRILL_HOME"
