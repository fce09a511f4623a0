#!/usr/bin/env bash
# sweep.sh - the suite sweep (issue 5): every matrix kind x every type, with each type's parameters swept.
#
# Run on a GPU host from the project root after the build, as often as needed:
#   OUT=bench/results/h200 bash bench/sweep.sh
# Each call runs matrices until BUDGET seconds (default 480) have passed, then stops; the next call resumes
# with the first matrix not done ($OUT/sweep.done lists those). Records: $OUT/sweep.jsonl for the matrices of
# at least 250 MB, $OUT/sweep-cache.jsonl for the small, cache-resident set; console output in $OUT/sweep.log.
# Report: python3 bench/report.py $OUT/sweep.jsonl, and separately $OUT/sweep-cache.jsonl.
#
# Environment: BENCH (default build-gpu/examples/bench_spmv), BUDGET, SELL_TIMEOUT (default 300 s for sellcuda),
# BENCH_ARGS (extra bench_spmv options, e.g. "-batches 5 -reps 50").
# -h, -help, --help: the comment above, then exit
case "${1:-}" in -h | -help | --help)
  sed -n '2,/^set -euo pipefail/p' "$0" | grep '^#' | grep -v '^# -h, -help' | sed -E 's/^# ?//'
  exit 0
  ;;
esac
set -euo pipefail

# provenance of the records (bench_spmv reads these): the commit and whether the tree differs from it, from git where
# the checkout has it; on a host without .git pass GIT_COMMIT (and GIT_DIRTY=0|1) in the environment
if [[ -z ${GIT_COMMIT:-} ]] && git -C "$(dirname "$0")/.." rev-parse --short HEAD > /dev/null 2>&1; then
  GIT_COMMIT=$(git -C "$(dirname "$0")/.." rev-parse --short HEAD)
  if [[ -n $(git -C "$(dirname "$0")/.." status --porcelain --untracked-files=no) ]]; then GIT_DIRTY=1; else GIT_DIRTY=0; fi
fi
export GIT_COMMIT=${GIT_COMMIT:-} GIT_DIRTY=${GIT_DIRTY:-}
BENCH=${BENCH:-build-gpu/examples/bench_spmv}
OUT_DIR=${OUT:-bench/results}
BUDGET=${BUDGET:-480}
SELL_TIMEOUT=${SELL_TIMEOUT:-300}
BENCH_ARGS=${BENCH_ARGS:-}
DONE="$OUT_DIR/sweep.done"
LOG="$OUT_DIR/sweep.log"
mkdir -p "$OUT_DIR"
touch "$DONE"

TYPES="aijcusparse,cmrs,sellcs,bce,dia,hyb,ell,argcsr,gpuauto"
for h in 1 2 4 8 16; do TYPES+=",cmrs/mat_cmrs_height=$h"; done
for c in 8 16; do TYPES+=",sellcs/mat_sellcs_c=$c"; done
for s in 1 1024 8192; do TYPES+=",sellcs/mat_sellcs_sigma=$s"; done
for t in 2 4; do TYPES+=",sellcs/mat_sellcs_threads_per_row=$t"; done
for l in 16 256; do TYPES+=",bce/mat_bce_l=$l"; done

# "set|bench_spmv matrix options": large matrices (working set of 250 MB or more) and the cache-resident set
MATRICES=(
  "large|-matrix lap2d5 -grid 2048"
  "large|-matrix lap3d7 -grid 160"
  "large|-matrix lap3d27 -grid 100"
  "large|-matrix banded -rows 2000000 -width 50"
  "large|-matrix fem -rows 1000000"
  "large|-matrix rmat -scale 21 -edge_factor 16"
  "large|-matrix circuit -rows 4000000"
  "large|-matrix lp1 -rows 4000000"
  "large|-matrix permutation -rows 12000000"
  "large|-matrix dense -rows 5000"
  "large|-matrix lprect -rows 1000000"
  "large|-matrix longrows -rows 4000000 -long_rows 4 -long_len 100000"
  "cache|-matrix lap2d5 -grid 256"
  "cache|-matrix lap3d27 -grid 24"
  "cache|-matrix fem -rows 30000"
  "cache|-matrix rmat -scale 14 -edge_factor 16"
  "cache|-matrix circuit -rows 100000 -circuit_long_rows 4 -circuit_long_len 2000"
)

start=$SECONDS
for spec in "${MATRICES[@]}"; do
  IFS='|' read -r set opts <<<"$spec"
  if grep -qxF -- "$opts" "$DONE"; then continue; fi
  if ((SECONDS - start > BUDGET)); then
    echo "sweep.sh: stopped after ${BUDGET} s; run again to resume" | tee -a "$LOG"
    exit 0
  fi
  results="$OUT_DIR/sweep.jsonl"
  [[ $set == cache ]] && results="$OUT_DIR/sweep-cache.jsonl"
  read -r -a args <<<"$opts"
  read -r -a extra <<<"$BENCH_ARGS"
  echo "=== $opts" | tee -a "$LOG"
  "$BENCH" "${args[@]}" -types "$TYPES" -json_out "$results" ${extra[@]+"${extra[@]}"} >>"$LOG" 2>&1 || echo "--- bench_spmv failed ($?): $opts" | tee -a "$LOG"
  if ! timeout --kill-after=10 "$SELL_TIMEOUT" "$BENCH" "${args[@]}" -types sellcuda -json_out "$results" ${extra[@]+"${extra[@]}"} >>"$LOG" 2>&1; then
    printf '{"matrix": "%s", "matrix_args": "%s", "type": "sellcuda", "entry": "sellcuda", "status": "timeout or failure", "limit_s": %s}\n' "${args[1]}" "$opts" "$SELL_TIMEOUT" >>"$results"
  fi
  echo "$opts" >>"$DONE"
done
echo "sweep.sh: all $(wc -l <"$DONE") matrices done" | tee -a "$LOG"
