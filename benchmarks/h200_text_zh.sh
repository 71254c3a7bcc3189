#!/usr/bin/env bash
# Issue 18's text work on the H200 (torch 2.11 / triton 3.6): the CUDA-only paths whose words moved into texts.yaml
# (the speed gate's check row and its timing method, the limits family's capped-vs-uncapped timing, drill bench's
# legend and status line, the GPU timing's progress lines) run without error and read in Chinese under --lang zh,
# while the verdict's JSON keeps its English detail. From the repository root (under 4 minutes of wall time; each
# step has its own timeout: a cold CUDA grade compiles every kernel, bench times each size):
#     OUT=DIR bash benchmarks/h200_text_zh.sh
set -u
export PYTHONPATH=.
export DRILL_HOME="$(mktemp -d)"
OUT="${OUT:-/tmp/h200_text_zh}"
mkdir -p "$OUT"
python -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name())"
# 1. fused add+relu: the speed gate's row, English in the JSON, each row's pieces formatted in Chinese
timeout 60 python cli.py grade solutions/fuse.py --device cuda --json --lang zh > "$OUT/fuse.json" 2> "$OUT/fuse.err"
echo "fuse rc=$?"
python - "$OUT/fuse.json" <<'PY'
import json, sys
from grader.reporting.i18n import row_detail
v = json.load(open(sys.argv[1]))
print("fuse passed:", v.get("passed"), "diagnosis:", v.get("diagnosis"))
for c in v.get("checks", []):
    print(f"  {c['name']!r}: en={c.get('detail')!r}\n      zh={row_detail(c, 'zh')!r}")
PY
# 2. layernorm forward + backward: the gate times whole steps (CUDA graph or do_bench: the method in the row)
( time timeout 60 python cli.py grade solutions/layernorm.py --device cuda --lang zh ) > "$OUT/layernorm_zh.txt" 2>&1
echo "layernorm rc=$?"; cat "$OUT/layernorm_zh.txt"
# 3. heuristics: the limits family's timing table and progress line
( time timeout 60 python cli.py grade solutions/heuristics.py --device cuda --lang zh ) > "$OUT/heuristics_zh.txt" 2>&1
echo "heuristics rc=$?"; cat "$OUT/heuristics_zh.txt"
# 4. drill bench: the legend, "copy" line and status line in Chinese
( time timeout 90 python cli.py bench solutions/fuse.py --sizes 4096,1048576 --lang zh ) > "$OUT/bench_zh.txt" 2>&1
echo "bench rc=$?"; cat "$OUT/bench_zh.txt"
echo "stderr of the fuse grade:"; tail -n 20 "$OUT/fuse.err"
# 5. a known mistake and a probe named in Chinese on CUDA (attention without its 1/sqrt(D) scale)
python - <<'PY' > "$OUT/attention_no_scale.py"
src = open("solutions/attention.py").read()
assert "(1.0 / math.sqrt(D)) * " in src
print(src.replace("(1.0 / math.sqrt(D)) * ", "", 1))
PY
( time timeout 90 python cli.py grade "$OUT/attention_no_scale.py" --device cuda --lang zh ) > "$OUT/attention_zh.txt" 2>&1
echo "attention (planted: no scale) rc=$?"; cat "$OUT/attention_zh.txt"
