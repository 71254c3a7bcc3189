#!/bin/bash
# `drill bench` on the H200 for the training and serving drills' reference solutions (issues 21 and 22: "drill bench
# works for both / all three"), each under its own timeout, the table as a learner sees it and the JSON beside it:
#   cd CHECKOUT && export PYTHONPATH=$PWD && OUT=DIR bash benchmarks/h200_bench_drills.sh > DIR/log.txt 2>&1
start=$(date +%s)
python -c "import torch, triton; print(torch.__version__, triton.__version__, torch.cuda.get_device_name())"
for f in layernorm cross_entropy decode_attention quant_matmul conv2d; do
  ( time timeout 150 python cli.py bench "solutions/$f.py" ) > "$OUT/bench_$f.txt" 2>&1
  echo "== $f rc=$? at $(( $(date +%s) - start )) s"
  grep -vE "Warning|warn_once" "$OUT/bench_$f.txt" | tail -40
done
