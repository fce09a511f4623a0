#!/usr/bin/env bash
# run_suite.sh - SpMV benchmark suites: run_suite.sh cmrs (issue 2), sellcs (issue 3), bce (issue 4), rmat (issue 3's
# R-MAT at three scales), refresh (products right after a change of values, every format), small (matrices of 4k to
# 100k rows and under 1M entries, where a product is a few microseconds: launch latency and the last partial wave) or
# peers (every large matrix of cmrs, sellcs, bce and rmat, our types at their defaults against both PETSc GPU types)
# dia (issue 18: the stencils and matrices of rising fill, every type), hyb (issue 18: HYB and ELL on the irregular
# matrices and two stencils), ell (issue 18: ELL's fill bound on matrices of rising fill) or argcsr (issue 18: ARG-CSR
# against every type on irregular matrices and stencils), auto (issue 19: every type and gpuauto on the matrices its model is
# fitted on), auto-check (the same on matrices it was not fitted on) or hot (issue 19, point 2: BCE's hot columns on R-MAT
# and the circuit-like matrix, with the balanced_hot yardstick, and on a stencil).
#
# Run on a GPU host from the project root after the build:
#   bench/run_suite.sh cmrs
#   python3 bench/report.py bench/results/cmrs.jsonl
#
# Environment:
#   BENCH         bench_spmv binary (default build-gpu/examples/bench_spmv)
#   OUT           output folder (default bench/results); records go to $OUT/SUITE.jsonl and the
#                 full console output to $OUT/SUITE.log
#   SELLCUDA      1 to also time PETSc's sellcuda on every matrix, in a run of its own (with SELL_TIMEOUT), inline to time
#                 it in the same run as the other types (no guard: for small matrices, where host timings drift between
#                 processes), 0 to leave it out (default 1)
#   SELL_TIMEOUT  seconds allowed for one sellcuda run (default 300), a guard: bench_spmv builds sellcuda through
#                 PETSc's own AIJ to SELL to SELLCUDA conversions
#   BENCH_ARGS    extra options for every bench_spmv run, e.g. "-batches 3 -reps 50", or "-interleave 20" (with
#                 SELLCUDA=inline: every type, sellcuda too, timed again in 20 rounds of one batch each in turn)
#   APPEND        set to 1 to append to an existing SUITE.jsonl instead of starting it afresh
#   DEADLINE      seconds after the start past which no further matrix is begun (each one left is listed in the log as
#                 "not run"); SKIP=k leaves out the first k matrices (to resume a suite with APPEND=1)
#
# A bench run that fails is recorded as {"matrix": ..., "status": "failed", "rc": N} and the script goes
# on; it exits nonzero at the end if any run failed. A sellcuda run that exceeds SELL_TIMEOUT is recorded
# as {"matrix": ..., "type": "sellcuda", "status": "timeout", "limit_s": ...} and is not a failure.
# -h, -help, --help: the comment above, then exit
case "${1:-}" in -h | -help | --help)
  sed -n '2,/^set -euo pipefail/p' "$0" | grep '^#' | grep -v '^# -h, -help' | sed -E 's/^# ?//'
  exit 0
  ;;
esac
set -euo pipefail

# provenance of the records: GIT_COMMIT and GIT_DIRTY
# shellcheck source=bench/provenance.sh
. "$(dirname "$0")/provenance.sh"

BENCH=${BENCH:-build-gpu/examples/bench_spmv}
OUT_DIR=${OUT:-bench/results}
SELL_TIMEOUT=${SELL_TIMEOUT:-300}
BENCH_ARGS=${BENCH_ARGS:-}
APPEND=${APPEND:-0}
DEADLINE=${DEADLINE:-}
SKIP=${SKIP:-0}
SUITE=${1:-cmrs}
RESULTS="$OUT_DIR/$SUITE.jsonl"
LOG="$OUT_DIR/$SUITE.log"

# timeout(1) exits with 124 when the limit expired and the command ended on SIGTERM
TIMEOUT_RC=124
# grace period before timeout(1) sends SIGKILL to a run that ignores SIGTERM
KILL_AFTER_S=10

# the matrices of issue 3, also those of the refresh suite
SELLCS_MATRICES=(
  "lap2d5 -grid 2048"
  "lap3d7 -grid 160"
  "rmat -scale 20 -edge_factor 16"
  "dense -rows 5000 -cols 5000"
  "circuit -rows 4000000"
)

# matrices of rising fill for DIA's and ELL's bounds: 9 diagonals whose slots off the main one hold an entry with
# probability 1 to 0.15 (1.0 to 4.1 slots per entry)
FILL_MATRICES=(
    "diagonals -rows 4000000 -diagonals 9 -occupancy 1"
    "diagonals -rows 4000000 -diagonals 9 -occupancy 0.75"
    "diagonals -rows 4000000 -diagonals 9 -occupancy 0.5"
    "diagonals -rows 4000000 -diagonals 9 -occupancy 0.3"
    "diagonals -rows 4000000 -diagonals 9 -occupancy 0.15"
)

case $SUITE in
cmrs) # issue 2: CMRS against cuSPARSE CSR and PETSc's SELL
  TYPES="aijcusparse,cmrs,cmrs/mat_cmrs_sort_columns=0"
  for h in 1 2 4 8 16; do TYPES+=",cmrs/mat_cmrs_height=$h"; done
  MATRICES=(
    "lap3d27 -grid 100"
    "banded -rows 2000000 -width 50"
    "longrows -rows 1000000 -long_rows 4 -long_len 100000"
    "longrows -rows 4000000 -long_rows 4 -long_len 100000"
    "lap2d5 -grid 2048"
  )
  ;;
sellcs) # issue 3: SELL-C-sigma, its sigma, threads per row, C, long rows and padding, against cuSPARSE, CMRS, BCE, PETSc's SELL
  # and the balanced, balanced_hot and stream kernels of examples/spmv_balanced.cu
  TYPES="aijcusparse,sellcs,cmrs,bce,balanced,balanced_hot,stream"
  for s in 1 32 256 1024 8192; do TYPES+=",sellcs/mat_sellcs_sigma=$s"; done
  for t in 1 2 4 8 32; do TYPES+=",sellcs/mat_sellcs_threads_per_row=$t"; done
  for c in 8 16; do TYPES+=",sellcs/mat_sellcs_c=$c"; done
  for l in 64 256 512; do TYPES+=",sellcs/mat_sellcs_long_row=$l"; done
  TYPES+=",sellcs/mat_sellcs_read_padding=1"
  MATRICES=("${SELLCS_MATRICES[@]}")
  ;;
bce) # issue 4: BCE and its L against cuSPARSE, CMRS and SELL-C-sigma on the matrices of both suites and a circuit
  TYPES="aijcusparse,cmrs,sellcs,bce"
  for l in 8 16 32 64 128 256 512 1024; do TYPES+=",bce/mat_bce_l=$l"; done
  MATRICES=(
    "lap3d27 -grid 100"
    "banded -rows 2000000 -width 50"
    "longrows -rows 1000000 -long_rows 4 -long_len 100000"
    "lap2d5 -grid 2048"
    "lap3d7 -grid 160"
    "rmat -scale 20 -edge_factor 16"
    "circuit -rows 4000000"
  )
  ;;
rmat) # issue 3, point 5: R-MAT of scales 20 to 22 (a working set under 4 times the L2 cache
  # measures the cache; scale 20's is 214 MB, 3.6 times the H200's 60 MB L2), against cuSPARSE, BCE and the yardsticks
  TYPES="aijcusparse,sellcs,bce,balanced,balanced_hot,stream"
  MATRICES=(
    "rmat -scale 20 -edge_factor 16"
    "rmat -scale 21 -edge_factor 16"
    "rmat -scale 22 -edge_factor 16"
  )
  ;;
small) # the regime of multigrid's coarse levels and block solves (issues 17 and 26): stiffness-like (fem), circuit-like with
  # a few rows of a few thousand entries, CFD-like stencils, R-MAT; the cache-resident set of bench/sweep.sh among them
  TYPES="aijcusparse,cmrs,sellcs,bce"
  MATRICES=(
    "fem -rows 5000"
    "fem -rows 30000"
    "circuit -rows 6000 -circuit_long_rows 4 -circuit_long_len 2000"
    "circuit -rows 20000 -circuit_long_rows 8 -circuit_long_len 3000"
    "circuit -rows 100000 -circuit_long_rows 4 -circuit_long_len 2000"
    "lap2d5 -grid 100"
    "lap2d5 -grid 256"
    "lap3d7 -grid 30"
    "lap3d27 -grid 24"
    "banded -rows 20000 -width 40"
    "rmat -scale 12 -edge_factor 16"
    "rmat -scale 14 -edge_factor 16"
    "lp1 -rows 50000"
  )
  ;;
peers) # issue 26: the large matrices of the cmrs, sellcs, bce and rmat suites, each once, our three types at their defaults
  # against aijcusparse and sellcuda (the per-matrix table against the faster PETSc type, without the parameter sweeps)
  TYPES="aijcusparse,cmrs,sellcs,bce"
  MATRICES=(
    "lap3d27 -grid 100"
    "banded -rows 2000000 -width 50"
    "longrows -rows 1000000 -long_rows 4 -long_len 100000"
    "longrows -rows 4000000 -long_rows 4 -long_len 100000"
    "${SELLCS_MATRICES[@]}"
    "rmat -scale 21 -edge_factor 16"
    "rmat -scale 22 -edge_factor 16"
  )
  ;;
dia) # issue 18: DIA on the DMDA stencils (4M rows, 1M for the 27-point one) against every type, and on matrices of rising
  # fill (slots per entry: 9 diagonals whose slots off the main one hold an entry with probability 1 to 0.15), stored
  # whatever the fill (dia/mat_dia_max_fill=0) and at the default bound, to place -mat_dia_max_fill
  TYPES="aijcusparse,cmrs,sellcs,bce,dia,dia/mat_dia_max_fill=0"
  MATRICES=(
    "lap2d5 -grid 2048"
    "lap3d7 -grid 160"
    "lap3d27 -grid 100"
    "banded -rows 2000000 -width 50"
    "${FILL_MATRICES[@]}"
  )
  ;;
hyb) # issue 18: HYB and ELL (each with and without reading the ELL padding) against every type on the irregular matrices
  # of the suite (circuit-like, LP-like, R-MAT; HYB's target: level with the best current type) and two stencils
  TYPES="aijcusparse,cmrs,sellcs,bce,hyb,hyb/mat_hyb_read_padding=1,ell,ell/mat_ell_read_padding=1"
  MATRICES=(
    "circuit -rows 4000000"
    "lp1 -rows 4000000"
    "rmat -scale 20 -edge_factor 16"
    "rmat -scale 22 -edge_factor 16"
    "lap2d5 -grid 2048"
    "lap3d27 -grid 100"
  )
  ;;
ell) # issue 18: ELL's bound (-mat_ell_max_fill): ELL stored whatever its padding (ell/mat_ell_max_fill=0, padding read or
  # not) and at the default bound, on matrices of rising slots per entry (9 diagonals whose slots off the main one hold an
  # entry with probability 1 to 0.15: the longest row over the mean row, 1 to 4.1) and a band, against the other types
  TYPES="aijcusparse,sellcs,bce,hyb,ell,ell/mat_ell_max_fill=0,ell/mat_ell_max_fill=0/mat_ell_read_padding=1"
  MATRICES=(
    "banded -rows 2000000 -width 50"
    "${FILL_MATRICES[@]}"
  )
  ;;
argcsr) # issue 18: ARG-CSR at the paper's parameters (128 threads per group, desired chunk size 1) and at 32 (the paper's
  # best on a regular matrix), against every type, on the irregular matrices of the suite, where the paper claims its
  # largest gains (circuit-like), and on the stencils, where it claims losses
  TYPES="aijcusparse,cmrs,sellcs,bce,hyb,argcsr,argcsr/mat_argcsr_desired_chunk_size=32,argcsr/mat_argcsr_block=256"
  MATRICES=(
    "circuit -rows 4000000"
    "lp1 -rows 4000000"
    "rmat -scale 20 -edge_factor 16"
    "fem -rows 4000000"
    "lap2d5 -grid 2048"
    "lap3d27 -grid 100"
    "banded -rows 2000000 -width 50"
  )
  ;;
auto | auto-check) # issue 19: every type at its defaults, gpuauto with and without -mat_gpuauto_tune, against aijcusparse (and
  # sellcuda); "auto" is the set gpuauto's model is fitted on (bench/gpuauto_fit.py), large and small matrices of every
  # kind, "auto-check" matrices it was not fitted on (other sizes, seeds and shapes), to check the choice
  # gpuauto at its defaults (its format built after 50 products), built at the first product, and tuned
  TYPES="aijcusparse,cmrs,sellcs,bce,dia,hyb,ell,argcsr,gpuauto,gpuauto/mat_gpuformat_build_after=0,gpuauto/mat_gpuauto_tune=1/mat_gpuformat_build_after=0"
  if [[ $SUITE == auto ]]; then
    MATRICES=(
      "lap2d5 -grid 2048"
      "lap3d7 -grid 160"
      "lap3d27 -grid 100"
      "banded -rows 2000000 -width 50"
      "fem -rows 1000000"
      "diagonals -rows 4000000 -diagonals 9 -occupancy 0.5"
      "rmat -scale 20 -edge_factor 16"
      "circuit -rows 4000000"
      "lp1 -rows 4000000"
      "longrows -rows 1000000 -long_rows 4 -long_len 100000"
      "dense -rows 5000 -cols 5000"
      "permutation -rows 10000000"
      "fem -rows 5000"
      "fem -rows 30000"
      "circuit -rows 6000 -circuit_long_rows 4 -circuit_long_len 2000"
      "circuit -rows 100000 -circuit_long_rows 4 -circuit_long_len 2000"
      "lap2d5 -grid 100"
      "lap3d7 -grid 30"
      "lap3d27 -grid 24"
      "banded -rows 20000 -width 40"
      "rmat -scale 14 -edge_factor 16"
      "lp1 -rows 50000"
    )
  else
    MATRICES=(
      "rmat -scale 21 -edge_factor 16 -seed 7"
      "rmat -scale 22 -edge_factor 16"
      "lprect -rows 1000000"
      "fem -rows 200000 -seed 3"
      "lap3d7 -grid 60"
      "lap2d5 -grid 512"
      "circuit -rows 1000000 -seed 5"
      "circuit -rows 20000 -circuit_long_rows 8 -circuit_long_len 3000"
      "diagonals -rows 4000000 -diagonals 9 -occupancy 0.3"
      "longrows -rows 4000000 -long_rows 4 -long_len 100000"
      "banded -rows 500000 -width 120"
      "rmat -scale 12 -edge_factor 16"
      "lp1 -rows 1000000 -seed 2"
    )
  fi
  ;;
refresh) # products right after a change of values (value_change_us), the formats' value refresh included
  TYPES="aijcusparse,cmrs,sellcs,bce"
  MATRICES=("${SELLCS_MATRICES[@]}")
  ;;
hot) # issue 19, point 2: BCE with its most used columns read from a packed copy of x (-mat_bce_hot_columns: the default
  # automatic choice, none, and 65,536 to 262,144 of them), against aijcusparse and the balanced_hot yardstick (16,384 packed),
  # on R-MAT at three scales, the circuit-like matrix (columns used evenly) and, as a control, the 2D Laplacian
  TYPES="aijcusparse,bce,bce/mat_bce_hot_columns=0"
  for k in 65536 131072 262144; do TYPES+=",bce/mat_bce_hot_columns=$k"; done
  TYPES+=",balanced_hot"
  MATRICES=(
    "rmat -scale 20 -edge_factor 16"
    "rmat -scale 21 -edge_factor 16"
    "rmat -scale 22 -edge_factor 16"
    "circuit -rows 4000000"
    "lap2d5 -grid 2048"
  )
  ;;
*)
  echo "run_suite.sh: unknown suite '$SUITE' (cmrs, sellcs, bce, rmat, refresh, small, peers, dia, hyb, ell, argcsr, auto, auto-check, hot)" >&2
  exit 2
  ;;
esac

SELLCUDA=${SELLCUDA:-1}
case $SELLCUDA in
0 | 1) ;;
inline) TYPES+=",sellcuda" ;;
*)
  echo "run_suite.sh: SELLCUDA must be 0, 1 or inline, not '$SELLCUDA'" >&2
  exit 2
  ;;
esac

if [[ ! -x $BENCH ]]; then
  echo "run_suite.sh: $BENCH is not an executable; build first or set BENCH=..." >&2
  exit 2
fi
mkdir -p "$OUT_DIR"
if [[ $APPEND != 1 ]]; then
  : >"$RESULTS"
  : >"$LOG"
fi

# Device name as the status records should show it (bench_spmv records the CUDA device name itself)
DEVICE=""
if command -v nvidia-smi >/dev/null 2>&1; then
  DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 2>/dev/null | head -n 1 || true)
fi

json_str() { # JSON string literal of $1
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  printf '"%s"' "$s"
}

device_json() {
  if [[ -n $DEVICE ]]; then json_str "$DEVICE"; else printf 'null'; fi
}

failures=0

# run_bench <matrix spec> <types> [time limit in seconds]
run_bench() {
  local spec=$1 types=$2 limit=${3:-}
  local name=${spec%% *}
  local -a spec_args extra_args cmd
  read -r -a spec_args <<<"$spec"
  read -r -a extra_args <<<"$BENCH_ARGS"
  cmd=("$BENCH" -matrix "${spec_args[@]}" -types "$types" -json_out "$RESULTS" ${extra_args[@]+"${extra_args[@]}"})
  if [[ -n $limit ]]; then
    cmd=(timeout --kill-after="$KILL_AFTER_S" "$limit" "${cmd[@]}")
  fi

  echo "=== ${cmd[*]}" | tee -a "$LOG"
  local rc start=$SECONDS
  set +e
  "${cmd[@]}" 2>&1 | tee -a "$LOG"
  rc=${PIPESTATUS[0]}
  set -e

  if [[ $rc -eq 0 ]]; then
    return 0
  fi
  # timeout(1) reports 124 after SIGTERM and 137 (128 + SIGKILL) after --kill-after; 137 can also be
  # an out-of-memory kill, so it only counts as a timeout when the limit was actually reached.
  if [[ -n $limit ]] && { [[ $rc -eq $TIMEOUT_RC ]] || { [[ $rc -eq 137 ]] && ((SECONDS - start >= limit)); }; }; then
    echo "--- timed out after ${limit} s" | tee -a "$LOG"
    printf '{"device": %s, "matrix": %s, "matrix_args": %s, "type": %s, "entry": %s, "status": "timeout", "limit_s": %s}\n' \
      "$(device_json)" "$(json_str "$name")" "$(json_str "$spec")" "$(json_str "$types")" "$(json_str "$types")" "$limit" >>"$RESULTS"
    return 0
  fi
  echo "--- failed with exit code $rc" | tee -a "$LOG"
  printf '{"device": %s, "matrix": %s, "matrix_args": %s, "type": %s, "entry": %s, "status": "failed", "rc": %d}\n' \
    "$(device_json)" "$(json_str "$name")" "$(json_str "$spec")" "$(json_str "$types")" "$(json_str "$types")" "$rc" >>"$RESULTS"
  failures=$((failures + 1))
}

skipped=0
for spec in "${MATRICES[@]}"; do
  if ((skipped < SKIP)); then
    skipped=$((skipped + 1))
    continue
  fi
  if [[ -n $DEADLINE ]] && ((SECONDS >= DEADLINE)); then
    echo "--- not run (DEADLINE ${DEADLINE} s passed): $spec" | tee -a "$LOG"
    continue
  fi
  run_bench "$spec" "$TYPES"
  if [[ $SELLCUDA == 1 ]]; then run_bench "$spec" "sellcuda" "$SELL_TIMEOUT"; fi
done

echo "Records in $RESULTS, console output in $LOG"
if ((failures > 0)); then
  echo "run_suite.sh: $failures bench run(s) failed" >&2
  exit 1
fi
