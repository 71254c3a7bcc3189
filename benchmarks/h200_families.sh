#!/usr/bin/env bash
# Issue 18's family registry on the H200 (torch 2.11 / triton 3.6): the CUDA paths that now go through
# grader/families/registry.py, graded against each file's `# expect:` line. From the repository root:
#     OUT=DIR bash benchmarks/h200_families.sh        (under 100 s of wall time on 16 cores)
#     OUT=DIR T=300 bash benchmarks/h200_families.sh  (every file: batch 1 on 2026-12-01 got through 27 in 70 s)
# 1. the heuristics reference on CUDA with timing on: the limits family's `cuda_info` hook (capped vs uncapped
#    grid) and its report section; 2. the submissions of the limits, training and compile-lab drills
#    through grade_all --skip-timing, four drills at once. Compare with docs/h200/grade_all_cuda.txt.
set -u
export PYTHONPATH=.
export DRILL_HOME="$(mktemp -d)"
OUT="${OUT:-/tmp/h200_families}"
mkdir -p "$OUT"
python -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name())"
( time timeout 20 python cli.py grade solutions/heuristics.py --device cuda ) > "$OUT/heuristics_cuda.txt" 2>&1
echo "heuristics rc=$?"; cat "$OUT/heuristics_cuda.txt"
for d in heuristics layernorm graph_breaks custom_op; do
    timeout "${T:-70}" python benchmarks/grade_all.py --device cuda --skip-timing --jobs 3 --only "$d" \
        > "$OUT/grade_$d.txt" 2>&1 &
done
wait
cat "$OUT"/grade_*.txt | grep -E "^(ok |BAD)" | sort > "$OUT/families_cuda.txt"
echo "graded: $(wc -l < "$OUT/families_cuda.txt"), BAD: $(grep -c '^BAD' "$OUT/families_cuda.txt")"
grep "^BAD" "$OUT/families_cuda.txt"
tail -n 3 "$OUT"/grade_*.txt
