#!/usr/bin/env bash
# Issue 17, run and watch, on the H200 (torch 2.11 / triton 3.6). From the repository root:
#     bash benchmarks/h200_runwatch.sh
# 1. the interpreter-semantics, whose-fault and determinism tests under Triton 3.6 (the CPU side of a GPU grade);
# 2. every file of tests/submissions/blind4 graded on CUDA (with the interpreter run beside it): each must get its
#    `# expect:` (grade_all prints agree / DISAGREE);
# 3. the 40 TB allocation on CUDA: must be `error` (ImpossibleAllocation, its line) within seconds, not `timeout`.
set -u
export PYTHONPATH=.
mkdir -p docs/h200
python -m pytest -q tests/test_interp_semantics.py tests/test_faults.py tests/test_determinism.py \
    2>&1 | tail -5 | tee docs/h200/runwatch_tests.txt
python benchmarks/grade_all.py --device cuda --only blind4/ --skip-timing 2>&1 | tee docs/h200/runwatch_blind4.txt
( time python cli.py grade tests/submissions/blind4/r_va_impossible_alloc.py --device cuda ) 2>&1 | head -12 \
    | tee docs/h200/runwatch_impossible_alloc.txt
