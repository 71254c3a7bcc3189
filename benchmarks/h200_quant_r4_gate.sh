#!/usr/bin/env bash
# Issue 22's quant-matmul gate, calibrated under CUDA-graph replays (round 4, quant2; the K=2 mailbox batch; at most
# 145 s of wall time). The spec times every row as graph replays since session 4 (`speed_graphed=True`); the 20-run
# calibration had only been done with do_bench.
#   cd CHECKOUT && export PYTHONPATH=$PWD && OUT=DIR bash benchmarks/h200_quant_r4_gate.sh > DIR/log.txt 2>&1
# 1. `drill grade solutions/quant_matmul.py --device cuda`: the reference's CUDA grade as a learner gets it
#    (correctness at the spec's cuda_sizes, then the gate), once.
# 2. benchmarks/gate_calibration.py: the grader's own gate (grader.speed.timing.speed_report at (16, 8192, 8192),
#    bar cuBLAS on the float16 weight, graph replays) 20 times, the versions alternating: the reference (since
#    round 4 the even/odd kernel), the known-slow 16x16x16 tiles and the GPTQ-style correct variant; runs passing
#    speedup_min and reaching each --factor. Writes $OUT/gate_quant_graphed.json.
# 3. benchmarks/serving_sweep.py --set 4b: kind eo again with a split once (batch K=1 ran it with a's strided halves),
#    beside the reference, the previous reference and the by-bits file; M = 16, 1 (graph replays), 4096 (do_bench).
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
timeout $(( $(left) - 40 )) $PY benchmarks/gate_calibration.py --drill quant-matmul --repeats 20 \
  --budget-s $(( $(left) - 60 )) --out "$OUT" --tag quant_graphed \
  --version reference=solutions/quant_matmul.py \
  --version known-slow=benchmarks/known_slow/quant_matmul_tiny_tiles.py \
  --version gptq-style=tests/submissions/correct/quant_gptq_style_grouped.py \
  --factor 0.6 --factor 0.8 --factor 1.0 --factor 1.2 --factor 1.5 --factor 2.0 2>&1 | grep -v Warning
echo "gate rc=${PIPESTATUS[0]} at $(( $(date +%s) - START )) s"
export TRITON_CACHE_DIR="$OUT/triton_cache"
timeout $(( $(left) - 2 )) $PY benchmarks/serving_sweep.py --case quant --set 4b --rounds 3 --jobs 15 --out "$OUT" \
  2>&1 | grep -v Warning
echo "sweep rc=${PIPESTATUS[0]} at $(( $(date +%s) - START )) s"
rm -rf "$TRITON_CACHE_DIR"
rm -rf "$DRILL_HOME"
