#!/usr/bin/env bash
# Issue 22's quant-matmul, round 5 (quant3; the K=2 mailbox batch; at most 145 s of wall time): the final reference.
#   cd CHECKOUT && export PYTHONPATH=$PWD && OUT=DIR bash benchmarks/h200_quant_r5_gate.sh > DIR/log.txt 2>&1
# 1. `drill grade solutions/quant_matmul.py --device cuda`: correctness at the spec's cuda_sizes (one on each side of
#    the reference's LARGE_M), then the gate, as a learner gets it.
# 2. benchmarks/gate_calibration.py: the grader's own gate (grader.speed.timing.speed_report at (16, 8192, 8192), bar
#    cuBLAS on the float16 weight, graph replays) 20 times, the versions alternating: the reference, the known-slow
#    16x16x16 tiles, the GPTQ-style correct variant. Writes $OUT/gate_quant_r5.json.
# 3. benchmarks/serving_sweep.py --set 5b: the final reference file at M = 16, 1, 4096, 128, 2048, 1024 beside the
#    round-4 reference (fused at every M) and the by-bits file, cuBLAS, a Triton dequant + cuBLAS; M <= 16 graph
#    replays, M >= 128 do_bench, 3 alternating rounds, every row checked against float32 torch first.
set -u
export PYTHONPATH="${PYTHONPATH:-$PWD}" PYTHONUNBUFFERED=1 DRILL_HOME="${OUT:?set OUT}/drill_home"
PY="${PY:-python3}"
mkdir -p "$OUT"
START=$(date +%s)
left() { echo $(( ${TOTAL_S:-145} - ($(date +%s) - START) )); }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null
$PY -c "import torch, triton; print(torch.__version__, triton.__version__)"
timeout 40 $PY cli.py grade solutions/quant_matmul.py --device cuda 2>&1 | grep -v Warning | head -40
echo "grade rc=${PIPESTATUS[0]} at $(( $(date +%s) - START )) s"
timeout $(( $(left) - 45 )) $PY benchmarks/gate_calibration.py --drill quant-matmul --repeats 20 \
  --budget-s $(( $(left) - 65 )) --out "$OUT" --tag quant_r5 \
  --version reference=solutions/quant_matmul.py \
  --version known-slow=benchmarks/known_slow/quant_matmul_tiny_tiles.py \
  --version gptq-style=tests/submissions/correct/quant_gptq_style_grouped.py \
  --factor 0.6 --factor 1.0 --factor 1.5 --factor 1.8 --factor 2.0 2>&1 | grep -v Warning
echo "gate rc=${PIPESTATUS[0]} at $(( $(date +%s) - START )) s"
export TRITON_CACHE_DIR="$OUT/triton_cache"
timeout $(( $(left) - 2 )) $PY benchmarks/serving_sweep.py --case quant --set 5b --rounds 3 --jobs 15 --out "$OUT" \
  2>&1 | grep -v Warning
echo "sweep rc=${PIPESTATUS[0]} at $(( $(date +%s) - START )) s"
rm -rf "$TRITON_CACHE_DIR" "$DRILL_HOME"
