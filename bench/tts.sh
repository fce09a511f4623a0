#!/usr/bin/env bash
# tts.sh - time to solution (issue 5): KSP with Jacobi on suite matrices, every type against aijcusparse.
#
# Run on a GPU host from the project root after the build:
#   OUT=bench/results/h100 bash bench/tts.sh
# appends to OUT/tts.jsonl and writes OUT/tts.md, the report of this run's commit (also printed at the end).
#
# Matrices (written once with genmat into $MATDIR): 3D 7-point Laplacian of 1M rows and 2D 5-point of 1M
# rows (SPD: CG), FEM-like 1M points with 26 neighbours and circuit-like 4M rows (nonsymmetric, diagonally
# dominant: GMRES without restart, classical Gram-Schmidt always refined, so that iteration counts move with
# rounding only). Every run solves A x = A 1 to a relative residual of 1e-8 with Jacobi from x = 0 and records
# one JSON line in $OUT/tts.jsonl: the first product (which builds a GPU format), KSP setup and solve times,
# their sum (the time to solution), the iterations and the error. PETSc's sellcuda is built as its users build it:
# the matrix assembled as AIJ, then AIJ -> SELL -> SELLCUDA in place (ksp_solve does it; convert_s, counted in the
# time to solution as our types' build is, within their first product). A run that fails (a type this PETSc lacks)
# leaves a record with "status": "failed" and its last line of output, and the run goes on.
#
# Environment: KSP (default build-gpu/examples/ksp_solve), GENMAT (default build-gpu/examples/genmat),
# MATDIR (default /tmp/gpuformats-matrices), TYPES (default "aijcusparse sellcuda cmrs sellcs bce"), REPEAT (runs per
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
TYPES=${TYPES:-aijcusparse sellcuda cmrs sellcs bce}
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
      if ! out=$($KSP -f "$file" -mat_type "$type" -vec_type cuda -pc_type jacobi -ksp_rtol 1e-8 -ksp_max_it 10000 $kspopts 2>&1); then
        printf '{"matrix": "%s", "type": "%s", "status": "failed", "error": %s, "device": "%s", %s}\n' "$name" "$type" \
          "$(tail -n 3 <<<"$out" | python3 -c 'import json, sys; print(json.dumps(sys.stdin.read().strip()))')" \
          "$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 | head -n 1)" "$prov" | tee -a "$RESULTS"
        continue
      fi
      convert=$(value "Conversion AIJ -> SELL -> SELLCUDA" "$out")
      convert=${convert:-0}
      first=$(value "First product time" "$out")
      setup=$(value "Setup time" "$out")
      solve=$(value "Solve time" "$out")
      printf '{"matrix": "%s", "type": "%s", "ksp": "%s", "rows": %s, "nnz": %s, "iterations": %s, "reason": "%s", "convert_s": %s, "first_s": %s, "setup_s": %s, "solve_s": %s, "total_s": %s, "rel_err": %s, "device": "%s", %s}\n' \
        "$name" "$(value "Matrix type" "$out")" "$kspopts" "$(value Rows "$out")" "$(value Nonzeros "$out")" "$(value Iterations "$out")" "$(value "Converged reason" "$out")" \
        "$convert" "$first" "$setup" "$solve" "$(python3 -c "print($convert + $first + $setup + $solve)")" "$(value "Relative error" "$out")" \
        "$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 | head -n 1)" "$prov" | tee -a "$RESULTS"
    done
  done
done
python3 - "$RESULTS" "${GIT_COMMIT:-unknown}" "${GIT_DIRTY:-}" > "$OUT_DIR/tts.md" <<'PY'
import json, statistics, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
dirty = {"1": True, "0": False}.get(sys.argv[3])
# this run's commit and dirty flag (the file is append-only; reruns of the same state are pooled)
recs = [r for r in recs if r.get("commit") == sys.argv[2] and r.get("dirty") == dirty]
failed = [r for r in recs if r.get("status") == "failed"]
recs = [r for r in recs if r.get("status") != "failed"]
if not recs:
    sys.exit(f"no successful run of commit {sys.argv[2]} in {sys.argv[1]}")
r0 = recs[0]
print(f"# Time to solution ({r0['device']}; commit {sys.argv[2]}, dirty: {dirty}; CUDA driver {r0.get('cuda_driver')}, "
      f"runtime {r0.get('cuda_runtime')}, PETSc {r0.get('petsc')}; median of the repeated runs)\n")
print("Total: conversion (sellcuda's AIJ -> SELL -> SELLCUDA; our types build within the first product) + first product "
      "+ KSP setup + solve.\n")
print("| matrix | KSP | type | iterations | conversion ms | first product ms | solve ms | total ms | speedup vs aijcusparse | rel. error |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
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
    conv = statistics.median(x.get("convert_s", 0) for x in rs)
    print(f"| {m} | {rs[0]['ksp'].split()[1]} | {t} | {'/'.join(map(str, its))} | {1e3*conv:.1f} | {1e3*statistics.median(x['first_s'] for x in rs):.1f} | "
          f"{1e3*statistics.median(x['solve_s'] for x in rs):.1f} | {1e3*tot:.1f} | {ref.get(m, float('nan'))/tot:.2f} | {rs[0]['rel_err']:.1e} |")
for r in failed:
    print(f"| {r['matrix']} | | {r['type']} | failed: {r.get('error', '').splitlines()[-1] if r.get('error') else 'no output'} | | | | | | |")
PY
cat "$OUT_DIR/tts.md"
