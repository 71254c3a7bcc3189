#!/bin/bash
# issue 21, layernorm on the H200 (torch 2.11 / triton 3.6): what the lead runs to calibrate and confirm the gate.
#   cd REPO && export PYTHONPATH=$PWD && OUT=DIR bash benchmarks/layernorm_h200.sh > DIR/log.txt 2>&1
# (1) the speed gate as `drill grade` runs it, 20 alternating repeats of the reference and the known-slow version
#     (target: 20/20 pass, 20/20 too-slow; about 2 minutes); (2) the candidates and the reference beside eager and
#     torch.compile(dynamic=False), do_bench (host included) and CUDA-graph replay (device time), one run (~1 minute);
#     (3) one full `drill grade solutions/layernorm.py` on CUDA (correctness at (4096, 8192) fp16, then the gate).
export PYTHONUNBUFFERED=1 DRILL_HOME="${OUT:?set OUT}/drill_home"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv
timeout 300 python benchmarks/layernorm_gate.py --repeats 20 --budget-s 280 --out "$OUT" 2>&1 | grep -v Warning
timeout 200 python benchmarks/layernorm_candidates.py --rounds 5 --out "$OUT" 2>&1 | grep -v Warning
timeout 200 python cli.py grade solutions/layernorm.py --device cuda 2>&1 | tail -25
