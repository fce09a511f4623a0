#!/usr/bin/env bash
# launch_profile.sh - where a small matrix's product spends its time, per type: the GPU time per product (CUDA events),
# the host's time to issue one (issue_us: about the GPU time where the host's work bounds the product), and, from
# Nsight Compute, the kernels that one product launches, each with its duration, grid, block, registers and warps active.
#
# Run on a GPU host from the project root after the build:
#   bench/launch_profile.sh OUTDIR NAME MATRIX [generator options]     e.g. bench/launch_profile.sh out lap3d27 lap3d27 -grid 24
# writes OUTDIR/launch-NAME.jsonl (bench_spmv's records of the timing run: -warmup 2000 -batches 9 -reps 200, every type
# in one process), OUTDIR/launch-NAME-TYPE.csv (ncu's raw CSV of the kernels inside bench_spmv's NVTX range "timed",
# REPS products of that type alone) and OUTDIR/launch-NAME.md (the table of both).
# Nsight Compute runs with --cache-control none and --clock-control none, so that the products see the warm L2 and the
# clocks of the timing run; its durations still exclude the gaps between kernels, which the timing run includes.
#
# Environment:
#   TYPES  bench_spmv -types (default aijcusparse,sellcuda,cmrs,sellcs,bce)
#   BENCH  bench_spmv binary (default build-gpu/examples/bench_spmv)
#   NCU    Nsight Compute command line (default ncu from PATH, else /usr/local/cuda/bin/ncu)
#   REPS   products profiled per type (default 20)
# -h, -help, --help: the comment above, then exit
case "${1:-}" in -h | -help | --help)
  sed -n '2,/^set -euo pipefail/p' "$0" | grep '^#' | grep -v '^# -h, -help' | sed -E 's/^# ?//'
  exit 0
  ;;
esac
set -euo pipefail

if [[ $# -lt 3 ]]; then
  echo "usage: bench/launch_profile.sh OUTDIR NAME MATRIX [generator options]" >&2
  exit 2
fi
OUT_DIR=$1
NAME=$2
shift 2
TYPES=${TYPES:-aijcusparse,sellcuda,cmrs,sellcs,bce}
BENCH=${BENCH:-build-gpu/examples/bench_spmv}
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
REPS=${REPS:-20}
case $REPS in '' | *[!0-9]* | 0) echo "launch_profile.sh: REPS must be a positive integer" >&2; exit 2 ;; esac
METRICS=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread
METRICS+=,sm__warps_active.avg.pct_of_peak_sustained_active
mkdir -p "$OUT_DIR"
# provenance of bench_spmv's records (GIT_COMMIT, GIT_DIRTY)
# shellcheck source=bench/provenance.sh
. "$(dirname "$0")/provenance.sh"
JSONL="$OUT_DIR/launch-$NAME.jsonl"
: > "$JSONL"
"$BENCH" -matrix "$@" -types "$TYPES" -warmup 2000 -batches 9 -reps 200 -json_out "$JSONL" > "$OUT_DIR/launch-$NAME.log"
for t in ${TYPES//,/ }; do
  "$NCU" --nvtx --nvtx-include "timed/" --cache-control none --clock-control none --print-units base --metrics "$METRICS" --csv \
    "$BENCH" -matrix "$@" -types "$t" -warmup 0 -batches 1 -reps "$REPS" -bw_reps 1 > "$OUT_DIR/launch-$NAME-$t.csv" ||
    echo "launch_profile.sh: Nsight Compute failed for $t (its row of the report says what was read)" >&2
done

python3 - "$OUT_DIR" "$NAME" "$TYPES" "$REPS" "$*" <<'PY'
import csv, json, statistics, sys

out, name, types, reps, matrix = sys.argv[1], sys.argv[2], sys.argv[3].split(","), int(sys.argv[4]), sys.argv[5]
recs = {}
for line in open(f"{out}/launch-{name}.jsonl"):
    line = line.strip()
    if line.startswith("{"):
        r = json.loads(line)
        recs[r.get("entry", r.get("type"))] = r
first = next(iter(recs.values()), {})


def kernels(t):
    """per kernel name: launches, and the lists of each metric's values"""
    ks = {}
    with open(f"{out}/launch-{name}-{t}.csv") as f:
        rows = [l for l in f if l.startswith('"')]  # ncu's own lines (==PROF==) and the program's output are not CSV
    for row in csv.DictReader(rows):
        k = ks.setdefault(row["Kernel Name"], {"ids": set(), "m": {}})
        k["ids"].add(row["ID"])
        k["m"].setdefault(row["Metric Name"], []).append(float(row["Metric Value"].replace(",", "")))
    return ks


def med(k, metric):
    v = k["m"].get(metric)
    return statistics.median(v) if v else float("nan")


lines = [f"# Launches and kernels of one product: {matrix}", ""]
lines.append(f"- GPU: {first.get('device')}, driver {first.get('cuda_driver')}, CUDA runtime {first.get('cuda_runtime')}, "
             f"PETSc {first.get('petsc')}; commit {first.get('commit')} (dirty: {first.get('dirty')})")
lines.append(f"- matrix: {first.get('rows')} rows, {first.get('nnz')} entries; copy bandwidth {first.get('copy_bw_GBs')} GB/s")
lines.append("- timing: bench_spmv -warmup 2000 -batches 9 -reps 200, every type in one process; median per product over the "
             "batches of the GPU time (CUDA events) and of the host's time to issue the batch (issue_us)")
floors = next((r for r in recs.values() if r.get("access_floor_us") is not None), None)
if floors:
    lines.append(f"- the host's floors per product, same run: {floors['launch_floor_us']:.2f} µs to issue an empty kernel, "
                 f"{floors['access_floor_us']:.2f} µs for the same kernel inside a MatMult() that does what PETSc's GPU "
                 "products do around theirs (bench_spmv's launch_floor_us and access_floor_us)")
lines.append(f"- kernels: Nsight Compute (--cache-control none --clock-control none) over the NVTX range of {reps} timed "
             "products of that type alone; per kernel the launches per product and the medians of its launches")
lines.append("")
lines.append("| type | µs per product | issue µs | launches per product | kernel | µs (ncu) | grid | block | registers | warps active % |")
lines.append("|---|---|---|---|---|---|---|---|---|---|")
for t in types:
    r = recs.get(t, {})
    us = r.get("median_us")
    iu = r.get("issue_us")
    head = f"| {t} | {us:.2f} | {iu:.2f}" if us is not None and iu is not None else f"| {t} | {r.get('status', 'no record')} | "
    try:
        ks = kernels(t)
    except (OSError, KeyError) as e:
        lines.append(f"{head} | ncu: {e} | | | | | | |")
        continue
    total = sum(len(k["ids"]) for k in ks.values())
    if not ks:
        lines.append(f"{head} | 0 | (no kernel profiled) | | | | | |")
        continue
    for i, (kn, k) in enumerate(sorted(ks.items(), key=lambda kv: -len(kv[1]["ids"]))):
        short = kn if len(kn) < 60 else kn[:57] + "..."
        cells = (f"`{short}` (x{len(k['ids']) / reps:g}) | {med(k, 'gpu__time_duration.sum') / 1e3:.2f} | "
                 f"{med(k, 'launch__grid_size'):.0f} | {med(k, 'launch__block_size'):.0f} | "
                 f"{med(k, 'launch__registers_per_thread'):.0f} | {med(k, 'sm__warps_active.avg.pct_of_peak_sustained_active'):.1f} |")
        lines.append(f"{head} | {total / reps:g} | {cells}" if i == 0 else f"| | | | | {cells}")
open(f"{out}/launch-{name}.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
