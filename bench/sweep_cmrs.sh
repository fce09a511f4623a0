#!/usr/bin/env bash
# sweep_cmrs.sh - the CMRS sweep behind the default number of strips per warp (bench/README.md).
# Run on a GPU host from the project root after the build; writes ${OUT:-bench/results}/sweep-strips-per-warp.jsonl.
# -h, -help, --help: the comment above, then exit
case "${1:-}" in -h | -help | --help)
  sed -n '2,/^set -euo pipefail/p' "$0" | grep '^#' | grep -v '^# -h, -help' | sed -E 's/^# ?//'
  exit 0
  ;;
esac
set -euo pipefail
BENCH=${BENCH:-build-gpu/examples/bench_spmv}
OUT_DIR=${OUT:-bench/results}
RESULTS=$OUT_DIR/sweep-strips-per-warp.jsonl
mkdir -p "$OUT_DIR"
: >"$RESULTS"
T="aijcusparse"
for h in 8 16; do for g in 1 2 4; do T="$T,cmrs/mat_cmrs_height=$h/mat_cmrs_strips_per_warp=$g"; done; done
for M in "lap2d5 -grid 2048" "longrows -rows 1000000 -long_rows 4 -long_len 100000" "longrows -rows 4000000 -long_rows 4 -long_len 100000" "lap3d7 -grid 160"; do
  # shellcheck disable=SC2086
  "$BENCH" -matrix $M -types "$T" -json_out "$RESULTS" >/dev/null
done
T="aijcusparse,cmrs,cmrs/mat_cmrs_strips_per_warp=2,cmrs/mat_cmrs_strips_per_warp=4" # cmrs: 1 strip per warp on these
for M in "lap3d27 -grid 100" "banded -rows 2000000 -width 50"; do
  # shellcheck disable=SC2086
  "$BENCH" -matrix $M -types "$T" -json_out "$RESULTS" >/dev/null
done
python3 bench/report.py "$RESULTS"
