#!/usr/bin/env bash
# conv2d on an H200 (torch 2.11 / triton 3.6): what the session of 2026-12-01 could not run after its one GPU batch.
# From the repository root:  OUT=DIR bash benchmarks/h200_conv.sh   (about 5 minutes; each step bounded)
#  1. the gate's 20-run calibration: per gate, how many runs pass for the reference and the known-slow version
#     (against the spec's eager F.conv2d(x, w) and against cuDNN with w channels-last too);
#  2. `drill grade` of the reference on CUDA: its speed gate passes (>= 0.5x eager), and the `drill why-slow`
#     weight-gather version fails it with too-slow;
#  3. the NCHW path (x re-laid channels-last inside) against cuDNN on the NCHW tensors.
set -u
export PYTHONPATH=.
export DRILL_HOME="$(mktemp -d)"
OUT="${OUT:-docs/h200}"
mkdir -p "$OUT"
{
  echo "== 1. serving.py --cases conv --repeats 20"
  timeout 240 python benchmarks/serving.py --out "$OUT" --cases conv --repeats 20 2>&1 | tail -16
  echo "== 2. drill grade on CUDA: the reference, then the weight-gather slow version"
  timeout 120 python cli.py grade solutions/conv2d.py --device cuda 2>&1 | head -30
  python -c "from coach.bughunt import slow; s = slow.slow_for('conv2d')[0]; open('/tmp/conv_slow.py', 'w').write(slow.text(s, 'conv2d'))"
  timeout 120 python cli.py grade /tmp/conv_slow.py --device cuda 2>&1 | head -20
  echo "== 3. NCHW x"
  timeout 90 python benchmarks/conv_candidates.py --nchw --repeats 3 --reference \
      --only "flat rsck 128x256x64 w8 s3,flat rsck 128x128x64 w8 s3" 2>&1 | tail -12
} > "$OUT/h200_conv.txt" 2>&1
tail -80 "$OUT/h200_conv.txt"
