#!/bin/bash
# Runs a benchmark program with -json_out FILE (a fresh file) and checks its records: at least MIN of them, each one
# JSON object with the provenance members (commit, dirty, cuda_driver, cuda_runtime, petsc) and a device.
#   json_records.sh MIN PROGRAM ARGS...       (PROGRAM may be a launcher: mpiexec -n 2 bench_mpi ...)
set -euo pipefail
min=$1
shift
f=$(mktemp)
trap 'rm -f "$f"' EXIT
rm -f "$f"
"$@" -json_out "$f"
python3 - "$f" "$min" <<'PY'
import json, sys
path, need = sys.argv[1], int(sys.argv[2])
recs = [json.loads(l) for l in open(path) if l.strip()]
assert len(recs) >= need, f"{len(recs)} records, expected at least {need}"
for r in recs:
    missing = [k for k in ("device", "commit", "dirty", "cuda_driver", "cuda_runtime", "petsc") if k not in r]
    assert not missing, f"record without {missing}: {r}"
print(f"{len(recs)} records, each with its provenance (commit {recs[0]['commit']})")
PY
