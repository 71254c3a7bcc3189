#!/usr/bin/env bash
# Issue 22's decode-attention and quant-matmul gates on the H200 (torch 2.11 / triton 3.6): the grader's own gate run
# on each reference (PASS expected) and on each known-slow version (too-slow expected), then the 20-run calibration
# of every gate and the candidate sweep. From the repository root:  OUT=DIR bash benchmarks/h200_serving_gates.sh
# About 6 minutes (the calibration ~3.5 min, the sweeps ~1 min, four CUDA grades ~1.5 min).
set -u
export PYTHONPATH=.
export DRILL_HOME="$(mktemp -d)"
OUT="${OUT:-docs/h200}"
mkdir -p "$OUT"
{
  for f in solutions/decode_attention.py tests/submissions/correct/decode_one_launch_no_split.py \
           solutions/quant_matmul.py benchmarks/known_slow/quant_matmul_tiny_tiles.py; do
    echo "== drill grade $f --device cuda   (expect: PASS for solutions/, too-slow for the others)"
    timeout 120 python cli.py grade "$f" --device cuda --lang en 2>&1 | grep -E "PASS|FAIL|speed|x |gate|µs" | head -14
  done
  echo "== the 20-run calibration (each gate: reference 20/20, known-slow 0/20)"
  timeout 330 python benchmarks/serving.py --out "$OUT" --repeats 20 --cases decode,quant 2>&1 | tail -45
  echo "== the candidate schedules (quant: incl. the awq / awq_join kinds not yet timed)"
  timeout 80 python benchmarks/serving_sweep.py --case quant --rounds 3 --jobs 14 2>&1 | tail -95
  timeout 50 python benchmarks/serving_sweep.py --case decode --rounds 3 --jobs 14 2>&1 | tail -45
} > "$OUT/h200_serving_gates.txt" 2>&1
tail -150 "$OUT/h200_serving_gates.txt"
