"""Read the snapshots benchmarks/memhist/sitecustomize.py dumped: every allocation of more than MIN bytes, its size
and the innermost Python frames outside torch, in order, so an unexplained peak can be named."""
import glob
import pickle
import sys

MIN = int(sys.argv[2]) if len(sys.argv) > 2 else 16384
for path in sorted(glob.glob(f"{sys.argv[1]}/snapshot_*.pickle")):
    snap = pickle.load(open(path, "rb"))
    events = [e for trace in snap.get("device_traces", []) for e in trace]
    print(f"== {path}: {len(events)} events")
    live = 0
    peak = 0
    for e in events:
        if e["action"] == "alloc":
            live += e["size"]
        elif e["action"] in ("free_completed",):
            live -= e["size"]
        peak = max(peak, live)
        if e["action"] == "alloc" and e["size"] >= MIN:
            frames = [f for f in e.get("frames", []) if "/torch/" not in f["filename"]][:4]
            where = " <- ".join(f"{f['filename'].split('/')[-1]}:{f['line']} {f['name']}" for f in frames)
            print(f"alloc {e['size']:>10} live {live:>10}  {where}")
    print("peak of the replayed trace:", peak)
