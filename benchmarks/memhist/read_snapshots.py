"""Read the snapshots benchmarks/memhist/sitecustomize.py dumped. For each graded call of a training drill (from the
grader's dy placement in Backward.__init__ to the guard evidence read after the backward) list every allocator event
with its size and the innermost Python frames outside torch, so the bytes behind a CUDA peak can be named."""
import glob
import pickle
import sys

CALLS = int(sys.argv[2]) if len(sys.argv) > 2 else 3


def where(e, n=3):
    frames = [f for f in e.get("frames", []) if "/torch/" not in f["filename"]][:n]
    return " <- ".join(f"{f['filename'].split('/')[-1]}:{f['line']} {f['name']}" for f in frames)


for path in sorted(glob.glob(f"{sys.argv[1]}/snapshot_*.pickle")):
    snap = pickle.load(open(path, "rb"))
    events = [e for trace in snap.get("device_traces", []) for e in trace]
    print(f"== {path}: {len(events)} events")
    shown, inside, live = 0, False, 0
    for e in events:
        w = where(e)
        if e["action"] == "alloc" and "training.py" in w and "__init__" in w:
            if shown >= CALLS:
                break
            inside, live = True, 0
            print(f"-- call {shown + 1}: from the grader's dy placement")
            continue
        if inside and "guard_hits" in w:
            print(f"-- end of call {shown + 1}: net live {live} B")
            inside, shown = False, shown + 1
            continue
        if inside and e["action"] in ("alloc", "free_requested", "free_completed", "segment_alloc", "segment_free"):
            if e["action"] == "alloc":
                live += e["size"]
            elif e["action"] == "free_completed":
                live -= e["size"]
            print(f"  {e['action']:<15} {e['size']:>9} live {live:>9}  {w}")
