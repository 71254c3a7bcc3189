#!/usr/bin/env bash
# The H200 agreement run (torch 2.11 / triton 3.6): every shipped submission and reference graded on CUDA, with the
# interpreter run beside it, against its `# expect:` line; then the impossible allocation. From the repository root:
#     OUT=DIR bash benchmarks/h200_verdicts.sh [--done PREVIOUS_PRINTOUT]
set -u
export PYTHONPATH=.
export DRILL_HOME="$(mktemp -d)"
OUT="${OUT:-docs/h200}"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
timeout 520 python benchmarks/grade_all.py --device cuda --skip-timing --jobs 8 --out "$OUT" "$@" \
    > "$OUT/grade_all_cuda.txt" 2>&1
echo "grade_all rc=$?"; tail -2 "$OUT/grade_all_cuda.txt"; grep -c "^BAD" "$OUT/grade_all_cuda.txt"
( time timeout 60 python cli.py grade tests/submissions/blind4/r_va_impossible_alloc.py --device cuda ) \
    > "$OUT/impossible_alloc_cuda.txt" 2>&1
head -5 "$OUT/impossible_alloc_cuda.txt"
