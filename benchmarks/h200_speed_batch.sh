#!/usr/bin/env bash
# Issues 21 and 22's speed goals on the H200 (torch 2.11 / triton 3.6), one batch of at most 8.5 minutes of wall time:
#   cd CHECKOUT && export PYTHONPATH=$PWD && OUT=DIR bash benchmarks/h200_speed_batch.sh > DIR/log.txt 2>&1
#   DRY=1 PY=/path/to/python OUT=/tmp/x bash benchmarks/h200_speed_batch.sh   (CPU: every CPU-safe part, no timing)
# Steps, in order of value; each bounded by `timeout` and by what is left of the batch's 500 s (a step that does not
# fit says so and is skipped; a calibration that runs short says how many repeats fit):
#  1. quant sweep (benchmarks/serving_sweep.py --case quant): every candidate, the alternative reference's schedules
#     among them (split-K, AWQ-style scale, bytes once, GEMV at M = 1), M in {1, 16, 128, 4096}, values checked first,
#     medians and min..max over 3 alternating rounds; writes q/quant_matmul_awq_best.py (the fastest schedules).
#  2. cross-entropy candidates (benchmarks/cross_entropy.py): the reference and the persistent candidate's schedules
#     beside eager and torch.compile(dynamic=False), peak extra memory, 5 rounds; writes
#     ce/cross_entropy_persistent_best.py.
#  3. the gates' calibration (benchmarks/gate_calibration.py: the exact gate `drill grade --device cuda` runs,
#     up to 20 alternating repeats): quant-matmul (reference, alternative best, known-slow), cross-entropy (reference,
#     persistent best, known-slow; proposed factors, no gate yet), decode-attention, layernorm, conv2d (reference,
#     known-slow); then a few repeats of the correct variants of cross-entropy and quant-matmul (tests/submissions/
#     correct/: where a learner's correct kernel lands against a gate).
#  4. if time is left: `drill grade --device cuda` of the two best files (correctness at the CUDA sizes + the gate).
# Output under $OUT: summary.txt (the tables), results.tar.gz (every JSON, step log and best file).
set -u
export PYTHONPATH="${PYTHONPATH:-$PWD}" PYTHONUNBUFFERED=1
PY="${PY:-python}"
OUT="${OUT:?set OUT}"
DRY="${DRY:-0}"
TOTAL_S="${TOTAL_S:-500}"
mkdir -p "$OUT/q" "$OUT/ce" "$OUT/gates" "$OUT/logs"
export DRILL_HOME="$OUT/drill_home"
START=$(date +%s)
left() { echo $(( TOTAL_S - ($(date +%s) - START) )); }

# step NAME MAX_S CMD...: run CMD under timeout min(MAX_S, time left - 5); log to logs/NAME.txt
step() {
  local name=$1 max=$2; shift 2
  local t; t=$(left); t=$(( t - 5 ))
  if [ "$t" -lt 20 ]; then echo "== $name: SKIPPED, $(left) s left of the batch"; return; fi
  [ "$max" -lt "$t" ] && t=$max
  echo "== $name (timeout ${t} s, $(left) s left; $(date -u +%H:%M:%S))"
  timeout "$t" "$@" > "$OUT/logs/$name.txt" 2>&1
  echo "   rc=$? after $(( $(date +%s) - START )) s"
}
# budget for a calibration: min(MAX, time left - 25), at least 10
budget() { local b; b=$(( $(left) - 25 )); [ "$1" -lt "$b" ] && b=$1; [ "$b" -lt 10 ] && b=10; echo "$b"; }

CE_FILE=benchmarks/candidates/cross_entropy_persistent.py
CE_CANDS=(
  "$CE_FILE:BLOCK_V=16384,NUM_WARPS=32,PROGRAMS_PER_SM=1,REVERSE=1,EVICT=1"
  "$CE_FILE:BLOCK_V=32768,NUM_WARPS=32,PROGRAMS_PER_SM=1,REVERSE=1,EVICT=1"
  "$CE_FILE:BLOCK_V=16384,NUM_WARPS=32,PROGRAMS_PER_SM=1,REVERSE=0,EVICT=0"
  "$CE_FILE:BLOCK_V=8192,NUM_WARPS=16,PROGRAMS_PER_SM=2,REVERSE=1,EVICT=1"
  "$CE_FILE:BLOCK_V=8192,NUM_WARPS=16,PROGRAMS_PER_SM=2,REVERSE=1,EVICT=0"
  "$CE_FILE:BLOCK_V=8192,NUM_WARPS=16,PROGRAMS_PER_SM=2,REVERSE=0,EVICT=0"
  "$CE_FILE:BLOCK_V=16384,NUM_WARPS=16,PROGRAMS_PER_SM=2,REVERSE=1,EVICT=1"
  "$CE_FILE:BLOCK_V=8192,NUM_WARPS=16,PROGRAMS_PER_SM=3,REVERSE=1,EVICT=1"
  "$CE_FILE:BLOCK_V=8192,NUM_WARPS=8,PROGRAMS_PER_SM=4,REVERSE=1,EVICT=1"
  "$CE_FILE:BLOCK_V=16384,NUM_WARPS=32,PROGRAMS_PER_SM=1,REVERSE=1,EVICT=1,PREFETCH=1"
  "$CE_FILE:BLOCK_V=8192,NUM_WARPS=16,PROGRAMS_PER_SM=1,REVERSE=1,EVICT=1,PREFETCH=1"
  "$CE_FILE:BLOCK_V=8192,NUM_WARPS=16,PROGRAMS_PER_SM=2,REVERSE=1,EVICT=1,PREFETCH=1"
)
CE_ARGS=(--configs 8192x16); for c in "${CE_CANDS[@]}"; do CE_ARGS+=(--candidate "$c"); done
# a correct cross-entropy that should be slow: the reference's kernel with 128-element blocks on one warp (8 KB of
# loads in flight per SM at most, 32 one-warp programs: a fraction of the bandwidth)
CE_SLOW="solutions/cross_entropy.py:BLOCK_V=128,NUM_WARPS=1"

if [ "$DRY" = 1 ]; then
  echo "== DRY: CPU checks of every candidate and every calibration's versions (nothing timed)"
  timeout 600 "$PY" benchmarks/serving_sweep.py --case quant --dry 2>&1 | tail -12; echo "quant dry rc=${PIPESTATUS[0]}"
  timeout 600 "$PY" benchmarks/cross_entropy.py --out "$OUT/ce" --dry "${CE_ARGS[@]}" --candidate "$CE_SLOW" 2>&1 \
    | grep -v Warning; echo "ce dry rc=${PIPESTATUS[0]}"
  # every candidate compiled for sm_90 by this machine's Triton (PYTHONPATH=<triton 3.6>:. for the H200's version)
  timeout 600 "$PY" benchmarks/sm90_compile_check.py 2>&1 | grep -v -i warn | tail -3; echo "sm90 rc=${PIPESTATUS[0]}"
fi

if [ "$DRY" != 1 ]; then
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,memory.used --format=csv
  "$PY" -c "import torch, triton; print(torch.__version__, triton.__version__, torch.cuda.get_device_name())"
  step quant_sweep 110 "$PY" benchmarks/serving_sweep.py --case quant --rounds 3 --jobs 14 --out "$OUT/q"
  tail -100 "$OUT/logs/quant_sweep.txt"
  step ce_sweep 110 "$PY" benchmarks/cross_entropy.py --out "$OUT/ce" --rounds 5 "${CE_ARGS[@]}"
  grep -v "checked\|round" "$OUT/logs/ce_sweep.txt" | tail -25
fi

Q_BEST="$OUT/q/quant_matmul_awq_best.py"; [ -f "$Q_BEST" ] || Q_BEST=benchmarks/candidates/quant_matmul_awq.py
CE_BEST="$OUT/ce/cross_entropy_persistent_best.py"; [ -f "$CE_BEST" ] || CE_BEST=$CE_FILE
calibrate() {  # calibrate NAME MAX_BUDGET ARGS...
  local name=$1 max=$2; shift 2
  if [ "$DRY" = 1 ]; then "$PY" benchmarks/gate_calibration.py --dry "$@"; echo "$name dry rc=$?"; return; fi
  local b; b=$(budget "$max")
  step "gate_$name" $(( b + 40 )) "$PY" benchmarks/gate_calibration.py --repeats 20 --budget-s "$b" \
    --out "$OUT/gates" --tag "$name" "$@"
  grep -E "pass|reach|budget|ERROR|wall" "$OUT/logs/gate_$name.txt" | grep -v "^ *[0-9]" | tail -8
}
calibrate quant 65 --drill quant-matmul --version reference=solutions/quant_matmul.py \
  --version "alt-best=$Q_BEST" --version known-slow=benchmarks/known_slow/quant_matmul_tiny_tiles.py \
  --factor 0.3 --factor 0.5 --factor 1.0 --factor 2.0
calibrate ce 75 --drill cross-entropy --bench-size 8192,128256 --small-size 1024,32000 \
  --version reference=solutions/cross_entropy.py --version "persistent-best=$CE_BEST" --version "known-slow=$CE_SLOW" \
  --factor 1.5 --factor 2.0 --factor 2.5 --factor 3.0 --factor 3.5
calibrate decode 45 --drill decode-attention --version reference=solutions/decode_attention.py \
  --version known-slow=tests/submissions/correct/decode_one_launch_no_split.py --factor 2.5 --factor 3.0
calibrate layernorm 45 --drill layernorm --version reference=solutions/layernorm.py \
  --version known-slow=benchmarks/known_slow/layernorm_tutorial_locks.py --factor 1.5 --factor 1.75 --factor 2.0
calibrate conv 50 --drill conv2d --version reference=solutions/conv2d.py \
  --version known-slow=benchmarks/known_slow/conv_raw_weight_layout.py --factor 0.5
# where the drills' correct variants (tests/submissions/correct/) land against the gates: a few repeats each
calibrate ce_variants 15 --drill cross-entropy --bench-size 8192,128256 --small-size 1024,32000 \
  --version recompute=tests/submissions/correct/cross_entropy_recompute.py \
  --version multirow=tests/submissions/correct/cross_entropy_multirow.py --factor 2.0 --factor 2.5 --factor 3.0
calibrate quant_variants 15 --drill quant-matmul --version gptq=tests/submissions/correct/quant_gptq_style_grouped.py \
  --version awq-after-dot=tests/submissions/correct/quant_awq_scale_after_dot.py \
  --version even-odd=tests/submissions/correct/quant_even_odd_two_dots.py --factor 0.3 --factor 0.5 --factor 1.0

if [ "$DRY" != 1 ]; then
  for f in "$Q_BEST" "$CE_BEST"; do
    n=$(basename "$f" .py)
    step "grade_$n" 60 "$PY" cli.py grade "$f" --device cuda --lang en
    grep -E "PASS|FAIL|too-slow|speed|x the|µs" "$OUT/logs/grade_$n.txt" | head -12
  done
  {
    echo "batch wall $(( $(date +%s) - START )) s"
    tail -90 "$OUT/logs/quant_sweep.txt" 2>/dev/null
    grep -v "checked\|round" "$OUT/logs/ce_sweep.txt" 2>/dev/null | tail -25
    for g in "$OUT"/logs/gate_*.txt; do echo "-- $g"; grep -vE "^ +[0-9]+ " "$g" | tail -8; done
    for g in "$OUT"/logs/grade_*.txt; do echo "-- $g"; head -30 "$g"; done
  } > "$OUT/summary.txt" 2>&1
  tar czf "$OUT/results.tar.gz" -C "$OUT" q ce gates logs 2>/dev/null
  rm -rf "$OUT/q" "$OUT/ce" "$OUT/gates" "$OUT/logs" "$OUT/drill_home"
fi
echo "done after $(( $(date +%s) - START )) s"
