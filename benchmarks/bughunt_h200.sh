#!/usr/bin/env bash
# The planted mistakes of the seven drills added on 2026-12-01, graded on CUDA (the H200): does each planted file
# fail there with the category it gets on CPU? One benchmarks/bughunt_catalog.py per drill, side by side (the
# machine's 16 cores; one GPU), each under `timeout 90`, so the whole run stays under 100 s of wall time.
#   cd REPO && export PYTHONPATH=$PWD && OUT=DIR bash benchmarks/bughunt_h200.sh
set -u
OUT=${OUT:-/tmp/bughunt_h200}
mkdir -p "$OUT"
python -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, 'cuda', torch.cuda.is_available())"
date -u
pids=()
for d in layernorm cross-entropy decode-attention quant-matmul conv2d custom-op graph-breaks; do
    timeout 90 python benchmarks/bughunt_catalog.py --device cuda --no-slow --drills "$d" \
        --out "$OUT/bughunt_$d.json" > "$OUT/bughunt_$d.txt" 2>&1 &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
date -u
for d in layernorm cross-entropy decode-attention quant-matmul conv2d custom-op graph-breaks; do
    echo "== $d"
    grep -E '^(ok |BAD)|^\{' "$OUT/bughunt_$d.txt" || tail -5 "$OUT/bughunt_$d.txt"
done
