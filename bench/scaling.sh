#!/bin/bash
# scaling.sh - several GPUs (issue "Two GPUs"): strong and weak scaling of the parallel product, one process per GPU,
# with examples/bench_mpi.c: every parallel type with mpiaijcusparse's MatMult() and with -mat_gpuformat_overlap
# (/overlap; TYPES lists the entries, the off-diagonal block in cuSPARSE's CSR, as the first run on 2 GPUs chose), against
# mpiaijcusparse with the same partition, on four matrices of at least 50 M entries (3D 7- and 27-point
# Laplacians, FEM-like, R-MAT). Per matrix:
#   strong  the matrix on 1 GPU and on NGPUS GPUs;
#   weak    the matrix with NGPUS times the rows on NGPUS GPUs (the Laplacians NGPUS times as deep in z, FEM-like NGPUS
#           times the points, R-MAT log2(NGPUS) scales up): the rows per GPU of the 1-GPU run.
# Every run passes -gpus_expected P, so bench_mpi stops unless its P processes use P distinct GPUs (PETSc gives rank r
# the device r mod the devices it sees). The host MPI is not CUDA-aware here (-use_gpu_aware_mpi 0, set by run.sh):
# ghost values pass through host memory, and the scatter's time says what that costs. The runs on NGPUS GPUs also print
# each entry's timeline of one product on every process (bench_mpi -timeline: PETSc's events on each host, in place of a
# profiler's timeline, which Nsight Systems does not make on our GPU hosts).
#   bash bench/scaling.sh OUTDIR      environment: BENCH (build-gpu/examples/bench_mpi), NGPUS (2), MATRICES (all of
#                                     lap3d7 lap3d27 fem rmat), DEADLINE (seconds, default 480: no run starts after it),
#                                     TYPES (bench_mpi's -types), BENCH_ARGS (added to every run)
# writes OUTDIR/scaling.jsonl (bench_mpi's records, with GIT_COMMIT/GIT_DIRTY) and OUTDIR/scaling.log (its tables);
# python3 bench/scaling_report.py OUTDIR/scaling.jsonl makes the report.
# -h, -help, --help: the comment above, then exit
case "${1:-}" in '' | -h | -help | --help)
  sed -n '2,/^set -euo pipefail/p' "$0" | grep '^#' | grep -v '^# -h, -help' | sed -E 's/^# ?//'
  exit 0
  ;;
esac
set -euo pipefail
out=$1
BENCH=${BENCH:-build-gpu/examples/bench_mpi}
NGPUS=${NGPUS:-2}
MATRICES=${MATRICES:-lap3d7 lap3d27 fem rmat}
TYPES=${TYPES:-aijcusparse,cmrs,sellcs,bce,cmrs/overlap,sellcs/overlap,bce/overlap}
DEADLINE=${DEADLINE:-480}
mkdir -p "$out"
# provenance of the records: GIT_COMMIT and GIT_DIRTY
# shellcheck source=bench/provenance.sh
. "$(dirname "$0")/provenance.sh"
have=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
if [ "$have" -lt "$NGPUS" ]; then
  echo "scaling.sh: $NGPUS GPUs wanted, $have visible: run it on a host with $NGPUS GPUs (NGPUS=1 for the one-GPU runs alone)" >&2
  exit 1
fi
log2=0
while [ $((1 << log2)) -lt "$NGPUS" ]; do log2=$((log2 + 1)); done

# the options of one matrix for the 1-GPU run (strong) and for the weak run on NGPUS GPUs, and its bench_mpi timing
args() { # kind weak(0|1)
  local w=$2
  case $1 in
  lap3d7) echo "-matrix lap3d7 -grid 200 -grid_z $((200 * (w ? NGPUS : 1)))" ;;    # 8 M rows, 55.7 M entries
  lap3d27) echo "-matrix lap3d27 -grid 130 -grid_z $((130 * (w ? NGPUS : 1)))" ;; # 2.2 M rows, 57.3 M entries
  fem) echo "-matrix fem -rows $((2000000 * (w ? NGPUS : 1))) -neighbours 26" ;;  # 2 M rows, 54 M entries
  rmat)                                                                            # 4 M rows, 65 M entries; R-MAT's scale must grow by whole powers of 2
    [ "$w" = 1 ] && [ $((1 << log2)) -ne "$NGPUS" ] && return 1
    echo "-matrix rmat -scale $((22 + (w ? log2 : 0))) -edge_factor 16 -reps 20" # its scatter of ~2 M ghost values is slow: fewer products a batch
    ;;
  *)
    echo "scaling.sh: unknown matrix $1" >&2
    return 2
    ;;
  esac
}

start=$SECONDS
rc=0
for m in $MATRICES; do
  for run in "1 0 strong" "$NGPUS 0 strong" "$NGPUS 1 weak"; do
    read -r np weak kind <<< "$run"
    [ "$NGPUS" = 1 ] && [ "$np$weak" != 10 ] && continue
    if [ $((SECONDS - start)) -ge "$DEADLINE" ]; then
      echo "scaling.sh: past DEADLINE ($DEADLINE s): not run: $m, $np GPUs, $kind" | tee -a "$out/scaling.log"
      rc=1
      continue
    fi
    a=$(args "$m" "$weak") || {
      echo "scaling.sh: $m has no weak run on $NGPUS GPUs" | tee -a "$out/scaling.log"
      continue
    }
    echo "## $m, $np GPUs, $kind: $a" >> "$out/scaling.log"
    tl=
    [ "$np" -gt 1 ] && tl=-timeline
    # shellcheck disable=SC2086
    mpiexec -n "$np" "$BENCH" $a -types "$TYPES" -gpus_expected "$np" -json_out "$out/scaling.jsonl" $tl ${BENCH_ARGS:-} >> "$out/scaling.log" 2>&1 || {
      echo "failed: $m, $np GPUs, $kind" | tee -a "$out/scaling.log"
      rc=1
    }
  done
done
exit $rc
