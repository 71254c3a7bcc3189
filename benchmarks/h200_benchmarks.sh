#!/usr/bin/env bash
# The H200 benchmark run of 2026-12-01 (torch 2.11 / triton 3.6), each step bounded so that all of them report
# within one 10-minute call. From the repository root:  OUT=DIR bash benchmarks/h200_benchmarks.sh
set -u
export PYTHONPATH=.
export DRILL_HOME="$(mktemp -d)"
OUT="${OUT:-docs/h200}"
mkdir -p "$OUT"
{
  echo "== interpreter semantics, whose fault, determinism under triton 3.6"
  timeout 90 python -m pytest -q -p no:cacheprovider tests/test_interp_semantics.py tests/test_faults.py \
      tests/test_determinism.py 2>&1 | tail -4
  echo "== compiler labs on CUDA"
  timeout 120 python benchmarks/compiler_labs.py --device cuda --out "$OUT/compiler_labs_h200.json" 2>&1 | tail -30
  echo "== serving speed"
  timeout 170 python benchmarks/serving.py --out "$OUT" --repeats 5 2>&1 | tail -40
  echo "== training speed"
  timeout 110 python benchmarks/training.py --out "$OUT" --repeats 5 2>&1 | tail -30
  echo "== bug-hunt catalog on CUDA"
  timeout 80 python benchmarks/bughunt_catalog.py --device cuda 2>&1 | tail -12
} > "$OUT/h200_benchmarks.txt" 2>&1
tail -60 "$OUT/h200_benchmarks.txt"
