#!/usr/bin/env bash
# Issue 17/21 (H200): which allocation puts tests/submissions/correct/cross_entropy_recompute.py 45 KB over the CUDA
# peak rule? Grades it with the allocator's history recorded in every process, then lists the big allocations.
#   cd REPO && OUT=DIR bash benchmarks/ce_memory_history.sh
set -u
mkdir -p "${OUT:?set OUT}/memhist"
export DRILL_NO_WORKER=1 MEMHIST_OUT="$OUT/memhist" PYTHONPATH="$PWD/benchmarks/memhist:$PWD" DRILL_SKIP_TIMING=1
timeout 90 python cli.py grade tests/submissions/correct/cross_entropy_recompute.py --device cuda --json \
    > "$OUT/memhist/grade.json" 2> "$OUT/memhist/grade.err"
echo "grade rc=$?"
python -c "import json; v=json.load(open('$OUT/memhist/grade.json')); print(v.get('passed'), v.get('diagnosis')); print(json.dumps(v.get('evidence', v.get('memory')), default=str)[:1500])"
python benchmarks/memhist/read_snapshots.py "$OUT/memhist" 3 | head -200; tar czf "$OUT/memhist.tgz" -C "$OUT" memhist --exclude="*.pickle" 2>/dev/null
rm -f "$OUT"/memhist/*.pickle
