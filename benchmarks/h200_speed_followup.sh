#!/usr/bin/env bash
# After speed batch 2 (docs/serving.md, docs/training.md): what that batch could not settle. About 4 minutes.
#   cd CHECKOUT && export PYTHONPATH=$PWD && OUT=DIR bash benchmarks/h200_speed_followup.sh > DIR/log.txt 2>&1
# 1. quant sweep again (~60 s): the one-launch split-K rows (fixup=1) beside the two-launch ones, and the fastest
#    small-M rows as CUDA-graph replays: if graphed device times sit well under do_bench's ~52 us floor, the host's
#    two launches set it (batch 2's guess), and the fixup rows should get closer to the graphed times.
# 2. `drill grade solutions/cross_entropy.py --device cuda`: does the shipped reference pass the CUDA memory check
#    (batch 2's persistent candidate failed it: "peak memory grew by 1.1 MB" from (7, 3001) on)?
# 3. cross-entropy's gate calibration (count_wrong now moves the drill's error scale to the GPU: batch 2's gate
#    raised a cuda/cpu device mismatch): the reference, the 128 x 1-warp known-slow version, the correct variants.
set -u
export PYTHONPATH="${PYTHONPATH:-$PWD}" PYTHONUNBUFFERED=1 DRILL_HOME="${OUT:?set OUT}/drill_home"
mkdir -p "$OUT"
timeout 110 python benchmarks/serving_sweep.py --case quant --rounds 3 --jobs 14 --out "$OUT" 2>&1 | grep -v Warning
timeout 60 python cli.py grade solutions/cross_entropy.py --device cuda --lang en 2>&1 | head -30
timeout 110 python benchmarks/gate_calibration.py --drill cross-entropy --bench-size 8192,128256 \
  --small-size 1024,32000 --repeats 20 --budget-s 70 --out "$OUT" --tag ce \
  --version reference=solutions/cross_entropy.py --version "known-slow=solutions/cross_entropy.py:BLOCK_V=128,NUM_WARPS=1" \
  --version recompute=tests/submissions/correct/cross_entropy_recompute.py \
  --factor 1.5 --factor 2.0 --factor 2.5 --factor 3.0 2>&1 | grep -vE "Warning|run_backward" | tail -30
rm -rf "$DRILL_HOME"
