#!/bin/bash
# mpi.sh - the parallel SpMV benchmark (examples/bench_mpi.c, issue "MPI types" point 5): every parallel type, with the
# off-diagonal blocks in cuSPARSE's CSR and in the format, against mpiaijcusparse with the same partition, on 1, 2 and 4
# processes sharing one GPU, on the large matrices of the suites. Per entry: the product (max over the processes,
# median of the batches), the diagonal block's product alone, the ghost scatter alone, the ratios to mpiaijcusparse,
# the measured copy bandwidth.
#   bash bench/mpi.sh OUTDIR          environment: BENCH (build-gpu/examples/bench_mpi), NPS ("1 2 4"), BENCH_ARGS
# writes OUTDIR/mpi.jsonl (one record per entry) and OUTDIR/mpi.log (the tables)
# -h, -help, --help: the comment above, then exit
case "${1:-}" in '' | -h | -help | --help)
  sed -n '2,/^set -euo pipefail/p' "$0" | grep '^#' | grep -v '^# -h, -help' | sed -E 's/^# ?//'
  exit 0
  ;;
esac
set -euo pipefail
out=$1
BENCH=${BENCH:-build-gpu/examples/bench_mpi}
NPS=${NPS:-1 2 4}
mkdir -p "$out"
# provenance of the records: GIT_COMMIT and GIT_DIRTY
# shellcheck source=bench/provenance.sh
. "$(dirname "$0")/provenance.sh"
MATRICES=(
  "lap2d5 -grid 2048"
  "lap3d7 -grid 160"
  "rmat -scale 20 -edge_factor 16"
  "circuit -rows 4000000"
)
rc=0
for np in $NPS; do
  for mat in "${MATRICES[@]}"; do
    # shellcheck disable=SC2086
    mpiexec -n "$np" "$BENCH" -matrix $mat -json_out "$out/mpi.jsonl" ${BENCH_ARGS:-} >> "$out/mpi.log" 2>&1 || { echo "failed: np $np, $mat" | tee -a "$out/mpi.log"; rc=1; }
  done
done
exit $rc
