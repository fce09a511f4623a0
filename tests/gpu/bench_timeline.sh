#!/bin/bash
# Checks bench_mpi -timeline: for each entry of -types, one timeline in which every process enters and leaves MatMult()
# and then synchronises its device, at times that do not go back, and the scatter's events between.
#   bench_timeline.sh NPROCS LAUNCHER... BENCH_MPI ARGS...   (e.g. 2 mpiexec -n 2 bench_mpi -types aijcusparse,cmrs/overlap)
set -euo pipefail
np=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$@" -timeline -batches 1 -reps 2 -warmup 1 -bw_mib 16 -bw_reps 2 > "$log" 2>&1 || {
  cat "$log"
  exit 1
}
python3 - "$log" "$np" <<'PY'
import re, sys
path, np = sys.argv[1], int(sys.argv[2])
text = open(path).read()
blocks = re.split(r"^# timeline of one product, ", text, flags=re.M)[1:]
rows = [l for l in text.splitlines() if re.match(r"^  \S+ +[0-9.]+ +[0-9.]+", l)]
assert rows and len(blocks) == len(rows), f"{len(blocks)} timelines for {len(rows)} entries:\n{text}"
for b in blocks:
    name = b.splitlines()[0].split(":")[0]
    lines = [l for l in b.splitlines()[1:] if l.startswith("#   ")]
    ev = {}
    for l in lines:
        m = re.match(r"#\s+(\d+)\s+(-?[0-9.]+)\s+(begin|end) (.+)$", l)
        assert m, f"{name}: unreadable line {l!r}"
        ev.setdefault(int(m.group(1)), []).append((float(m.group(2)), m.group(3), m.group(4).strip()))
    assert sorted(ev) == list(range(np)), f"{name}: processes {sorted(ev)}, expected 0..{np - 1}"
    for r, e in ev.items():
        times = [t for t, _, _ in e]
        assert times == sorted(times) and times[0] >= 0, f"{name}, process {r}: times go back: {e}"
        seq = [(w, n) for _, w, n in e]
        assert seq[0] == ("begin", "MatMult"), f"{name}, process {r}: does not start with MatMult: {seq}"
        assert ("end", "MatMult") in seq and seq[-1] == ("end", "DeviceSynchronize"), f"{name}, process {r}: {seq}"
        assert ("begin", "VecScatterBegin") in seq and ("end", "VecScatterEnd") in seq, f"{name}, process {r}: no scatter in {seq}"
    print(f"{name}: {len(lines)} events on {np} processes, the product ends at {max(e[-1][0] for e in ev.values()):.1f} us")
PY
