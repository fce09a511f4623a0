#!/bin/bash
# BCE's automatic hot columns (-mat_bce_hot_columns -1, the default) through bench_spmv: kept on an R-MAT matrix (its most
# used columns hold most entries), considered and dropped on a circuit-like one (irregular rows, columns used evenly), never
# considered on a stencil; every product correct against aijcusparse.
#   bce_hot_auto.sh BENCH_SPMV
set -euo pipefail
bench=$1
f=$(mktemp)
trap 'rm -f "$f"' EXIT
for m in "rmat -scale 18 -edge_factor 16" "circuit -rows 300000" "lap2d5 -grid 600"; do
  # shellcheck disable=SC2086 # the matrix and its options
  "$bench" -matrix $m -types aijcusparse,bce,bce/mat_bce_hot_columns=0 -bw_mib 64 -batches 2 -reps 5 -json_out "$f" > /dev/null
done
python3 - "$f" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(recs) == 9, f"{len(recs)} records, expected 9"
for r in recs:
    assert r.get("correct") is True, f"{r.get('matrix')} {r.get('entry')}: not correct"
hot = {(r["matrix"], r["entry"]): r.get("hot_columns") for r in recs}
assert hot[("rmat", "bce")] == 32768, f"R-MAT: {hot[('rmat', 'bce')]} hot columns by default, expected 32768 (262144 / 8)"
for m in ("circuit", "lap2d5"):
    assert hot[(m, "bce")] == 0, f"{m}: {hot[(m, 'bce')]} hot columns by default, expected none"
for m in ("rmat", "circuit", "lap2d5"):
    assert hot[(m, "bce/mat_bce_hot_columns=0")] == 0, f"{m}: hot columns with -mat_bce_hot_columns 0"
share = next(r["hot_share"] for r in recs if r["matrix"] == "rmat" and r["entry"] == "bce")
print(f"BCE's automatic hot columns: R-MAT scale 18 32768 (holding {100 * share:.1f}% of the entries), circuit and lap2d5 none; 9 products correct")
PY
