#!/usr/bin/env bash
# Issue 22's quant-matmul gates, calibrated on the H200 (speed batch 3, the K=2 mailbox batch; it took 104 s there).
# Needs about 120 s of wall time, more than the usual 100 s, because the calibration is 20 runs of the grader's own
# gate for three versions (each run 5 rounds x 3 rows of do_bench, ~1 s: ~60 s), then 10 runs of the two
# other gates (M = 1 and M = 4096, ~26 s), a 7-row sweep of the reference's M = 4096 tiles (~15 s), and compiles.
# Each step is bounded by `timeout` and by what is left of TOTAL_S (default 140):
#   cd CHECKOUT && export PYTHONPATH=$PWD && OUT=DIR bash benchmarks/h200_quant_gate.sh > DIR/log.txt 2>&1
# 1. benchmarks/gate_calibration.py: `drill grade --device cuda`'s gate (grader.speed.timing.speed_report at the
#    spec's bench_size (16, 8192, 8192), its bar cuBLAS on the float16 weight) 20 times, the versions alternating:
#    the reference (split-K 4 at M <= 16), the reference with split-K 8, and the known-slow 16x16x16 tiles; runs
#    passing speedup_min and reaching each --factor. Writes $OUT/gate_quant.json.
# 2. benchmarks/serving.py --cases quant --quant-m 1,4096: the reference, the known-slow version, cuBLAS and eager,
#    10 runs; the gates at M = 1 and M = 4096 (QUANT_GATES). Writes $OUT/serving.json.
# 3. benchmarks/serving_sweep.py --case quant --set 3b: M = 4096, the reference's tiles without and with the bit
#    trick, beside the previous reference's.
set -u
export PYTHONPATH="${PYTHONPATH:-$PWD}" PYTHONUNBUFFERED=1 DRILL_HOME="${OUT:?set OUT}/drill_home"
PY="${PY:-python3}"
mkdir -p "$OUT"
START=$(date +%s)
left() { echo $(( ${TOTAL_S:-140} - ($(date +%s) - START) )); }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null
timeout $(( $(left) - 50 )) $PY benchmarks/gate_calibration.py --drill quant-matmul --repeats 20 --budget-s 70 \
  --out "$OUT" --tag quant \
  --version reference=solutions/quant_matmul.py \
  --version reference-splitk8=solutions/quant_matmul.py:SPLIT_K_SMALL=8 \
  --version known-slow=benchmarks/known_slow/quant_matmul_tiny_tiles.py \
  --factor 0.3 --factor 0.5 --factor 0.6 --factor 0.8 --factor 1.0 2>&1 | grep -v Warning
echo "gate rc=${PIPESTATUS[0]} at $(( $(date +%s) - START )) s"
timeout $(( $(left) - 20 )) $PY benchmarks/serving.py --cases quant --quant-m 1,4096 --repeats 10 --out "$OUT" \
  2>&1 | grep -v Warning | grep -v " run " | tail -30
echo "serving rc=${PIPESTATUS[0]} at $(( $(date +%s) - START )) s"
timeout $(( $(left) - 2 )) $PY benchmarks/serving_sweep.py --case quant --set 3b --rounds 3 --jobs 8 2>&1 \
  | grep -v Warning
echo "sweep rc=${PIPESTATUS[0]} at $(( $(date +%s) - START )) s"
rm -rf "$DRILL_HOME"
