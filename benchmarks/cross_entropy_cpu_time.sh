#!/bin/bash
# The CPU grade time of the cross-entropy reference beside the import floor, three times (docs/training.md).
# Run from the checkout: bash benchmarks/cross_entropy_cpu_time.sh (PYTHON= to pick the interpreter).
cd "$(dirname "$0")/.." && export PYTHONPATH=$PWD
P=${PYTHON:-python}
echo "date $(date -u '+%F %T') host $(hostname) nproc $(nproc)"
for i in 1 2 3; do
  uptime
  s=$(date +%s.%N); $P -c "import torch, triton" 2>/dev/null; e=$(date +%s.%N); echo "import floor $(echo "$e - $s" | bc) s"
  s=$(date +%s.%N); $P cli.py grade solutions/cross_entropy.py --json > "${TMPDIR:-/tmp}/ce_grade_time.json" 2>/dev/null; e=$(date +%s.%N)
  echo "grade reference wall $(echo "$e - $s" | bc) s; $($P -c "import json; d=json.load(open('"${TMPDIR:-/tmp}/ce_grade_time.json"')); print('passed', d['passed'], 'elapsed_s', d['elapsed_s'], 'phases', d['info']['cpu']['phases'])")"
done
