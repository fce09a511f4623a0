#!/usr/bin/env bash
# tts.sh - time to solution (issue 5): KSP with Jacobi on suite matrices, every type against aijcusparse.
#
# Run on a GPU host from the project root after the build:
#   OUT=bench/results/h200 bash bench/tts.sh
#
# Matrices (written once with genmat into $MATDIR): 3D 7-point Laplacian of 1M rows and 2D 5-point of 1M
# rows (SPD: CG), FEM-like 1M points with 26 neighbours and circuit-like 4M rows (nonsymmetric, diagonally
# dominant: GMRES without restart, classical Gram-Schmidt always refined, so that iteration counts move with
# rounding only). Every run solves A x = A 1 to a relative residual of 1e-8 with Jacobi from x = 0 and records
# one JSON line in $OUT/tts.jsonl: the first product (which builds a GPU format), KSP setup and solve times,
# their sum (the time to solution), the iterations and the error.
#
# Environment: KSP (default build-gpu/examples/ksp_solve), GENMAT (default build-gpu/examples/genmat),
# MATDIR (default /tmp/gpuformats-matrices), TYPES (default "aijcusparse cmrs sellcs bce"), REPEAT (runs per
# matrix and type, default 3; the report takes the median). The records are appended (one file per GPU, each record
# with its commit and versions); the report is of this run's commit.
# -h, -help, --help: the comment above, then exit
case "${1:-}" in -h | -help | --help)
  sed -n '2,/^set -euo pipefail/p' "$0" | grep '^#' | grep -v '^# -h, -help' | sed -E 's/^# ?//'
  exit 0
  ;;
esac
set -euo pipefail
KSP=${KSP:-build-gpu/examples/ksp_solve}
GENMAT=${GENMAT:-build-gpu/examples/genmat}
OUT_DIR=${OUT:-bench/results}
MATDIR=${MATDIR:-/tmp/gpuformats-matrices}
TYPES=${TYPES:-aijcusparse cmrs sellcs bce}
REPEAT=${REPEAT:-3}
RESULTS="$OUT_DIR/tts.jsonl"
mkdir -p "$OUT_DIR" "$MATDIR"
touch "$RESULTS"
# provenance of the records: GIT_COMMIT, GIT_DIRTY and provenance_json
# shellcheck source=bench/provenance.sh
. "$(dirname "$0")/provenance.sh"
prov=$(provenance_json)

# name | genmat options | KSP options
MATRICES=(
  "lap3d7|-matrix lap3d7 -grid 100|-ksp_type cg"
  "lap2d5|-matrix lap2d5 -grid 1024|-ksp_type cg"
  "fem|-matrix fem -rows 1000000|-ksp_type gmres -ksp_gmres_restart 1000 -ksp_gmres_cgs_refinement_type refine_always"
  "circuit|-matrix circuit -rows 4000000|-ksp_type gmres -ksp_gmres_restart 1000 -ksp_gmres_cgs_refinement_type refine_always"
)

value() { sed -n "s/^$1 \([^ ]*\).*/\1/p" <<<"$2"; }

for spec in "${MATRICES[@]}"; do
  IFS='|' read -r name genopts kspopts <<<"$spec"
  file="$MATDIR/$name.dat"
  [[ -f $file ]] || $GENMAT $genopts -o "$file"
  for type in $TYPES; do
    for ((r = 0; r < REPEAT; r++)); do
      out=$($KSP -f "$file" -mat_type "$type" -vec_type cuda -pc_type jacobi -ksp_rtol 1e-8 -ksp_max_it 10000 $kspopts)
      first=$(value "First product time" "$out")
      setup=$(value "Setup time" "$out")
      solve=$(value "Solve time" "$out")
      printf '{"matrix": "%s", "type": "%s", "ksp": "%s", "rows": %s, "nnz": %s, "iterations": %s, "reason": "%s", "first_s": %s, "setup_s": %s, "solve_s": %s, "total_s": %s, "rel_err": %s, "device": "%s", %s}\n' \
        "$name" "$(value "Matrix type" "$out")" "$kspopts" "$(value Rows "$out")" "$(value Nonzeros "$out")" "$(value Iterations "$out")" "$(value "Converged reason" "$out")" \
        "$first" "$setup" "$solve" "$(python3 -c "print($first + $setup + $solve)")" "$(value "Relative error" "$out")" \
        "$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 | head -n 1)" "$prov" | tee -a "$RESULTS"
    done
  done
done
python3 - "$RESULTS" "${GIT_COMMIT:-unknown}" "${GIT_DIRTY:-}" <<'PY'
import json, statistics, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
dirty = {"1": True, "0": False}.get(sys.argv[3])
# this run's commit and dirty flag (the file is append-only; reruns of the same state are pooled)
recs = [r for r in recs if r.get("commit") == sys.argv[2] and r.get("dirty") == dirty]
print(f"# Time to solution ({recs[0]['device']}; commit {sys.argv[2]}; median of the repeated runs)\n")
print("| matrix | KSP | type | iterations | first product ms | solve ms | total ms | speedup vs aijcusparse | rel. error |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|")
ref = {}
groups = {}
for r in recs:
    groups.setdefault((r["matrix"], r["type"]), []).append(r)
for (m, t), rs in groups.items():
    tot = statistics.median(x["total_s"] for x in rs)
    if t == "seqaijcusparse":
        ref[m] = tot
for (m, t), rs in groups.items():
    tot = statistics.median(x["total_s"] for x in rs)
    its = sorted({x["iterations"] for x in rs})
    print(f"| {m} | {rs[0]['ksp'].split()[1]} | {t} | {'/'.join(map(str, its))} | {1e3*statistics.median(x['first_s'] for x in rs):.1f} | "
          f"{1e3*statistics.median(x['solve_s'] for x in rs):.1f} | {1e3*tot:.1f} | {ref.get(m, float('nan'))/tot:.2f} | {rs[0]['rel_err']:.1e} |")
PY
