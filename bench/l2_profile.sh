#!/usr/bin/env bash
# l2_profile.sh - Nsight Compute's memory counters of the product kernels of bench_spmv on one matrix.
#
# Run on a GPU host from the project root after the build:
#   bench/l2_profile.sh OUTDIR rmat -scale 20 -edge_factor 16
# writes OUTDIR/l2-MATRIX.csv (ncu's raw CSV) and OUTDIR/l2-MATRIX.md: per product kernel, the median over
# its profiled launches of the time under the profiler, L2 sectors (all, and reads from the SMs), L2
# throughput as a percentage of its peak, DRAM bytes read, the L1 hit rate and the warps active.
# Launches are grouped by kernel name: two entries that run the same kernel (two sellcs variants, say) are
# pooled into one row, so profile such entries in separate calls.
#
# Environment:
#   TYPES  bench_spmv -types (default aijcusparse,sellcs,bce,balanced)
#   BENCH  bench_spmv binary (default build-gpu/examples/bench_spmv)
#   NCU    Nsight Compute command line (default ncu from PATH, else /usr/local/cuda/bin/ncu)
# -h, -help, --help: the comment above, then exit
case "${1:-}" in -h | -help | --help)
  sed -n '2,/^set -euo pipefail/p' "$0" | grep '^#' | grep -v '^# -h, -help' | sed -E 's/^# ?//'
  exit 0
  ;;
esac
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: bench/l2_profile.sh OUTDIR MATRIX [generator options]" >&2
  exit 2
fi
OUT_DIR=$1
shift
NAME=$1
TYPES=${TYPES:-aijcusparse,sellcs,bce,balanced}
BENCH=${BENCH:-build-gpu/examples/bench_spmv}
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
METRICS=gpu__time_duration.sum,lts__t_sectors.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed
METRICS+=,dram__bytes_read.sum,l1tex__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active
mkdir -p "$OUT_DIR"
# provenance of bench_spmv's records (GIT_COMMIT, GIT_DIRTY), which the report's header repeats
# shellcheck source=bench/provenance.sh
. "$(dirname "$0")/provenance.sh"
CSV="$OUT_DIR/l2-$NAME.csv"

# the product kernels only: cuSPARSE's csrmv, the formats' *_mult_kernel and the balanced kernels
"$NCU" -k 'regex:csrmv|_mult_kernel|spmv_balanced_kernel' --metrics "$METRICS" --csv \
  "$BENCH" -matrix "$@" -types "$TYPES" -warmup 0 -batches 1 -reps 3 -bw_reps 1 >"$CSV"

DRIVER=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1 || true)
python3 - "$CSV" "$OUT_DIR/l2-$NAME.md" "$*" "$TYPES" "$DRIVER" <<'PY'
import csv, json, statistics, sys

path, md, matrix, types, driver = sys.argv[1:6]
# provenance: bench_spmv's first record (it prints its records among ncu's lines)
prov = {}
for line in open(path):
    if line.startswith("{"):
        try:
            prov = json.loads(line)
            break
        except json.JSONDecodeError:
            pass
rows = list(csv.reader(open(path)))
start = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
hdr = rows[start]
vals = {}  # kernel -> metric -> values
order = []
for r in rows[start + 1:]:
    if len(r) != len(hdr):
        continue
    d = dict(zip(hdr, r))
    k = d["Kernel Name"].split("(")[0].removeprefix("void ")
    if len(k) > 40 and "<" in k:  # cuSPARSE's long template arguments
        k = k.split("<")[0] + "<…>"
    if k not in vals:
        vals[k] = {}
        order.append(k)
    vals[k].setdefault(d["Metric Name"], []).append(float(d["Metric Value"].replace(",", "")))
cols = [("gpu__time_duration.sum", "µs under ncu", 1e-3, ".1f"),
        ("lts__t_sectors.sum", "L2 sectors (M)", 1e-6, ".2f"),
        ("lts__t_sectors_srcunit_tex_op_read.sum", "L2 read sectors from SMs (M)", 1e-6, ".2f"),
        ("lts__throughput.avg.pct_of_peak_sustained_elapsed", "L2 throughput % of peak", 1, ".1f"),
        ("dram__bytes_read.sum", "DRAM MB read", 1e-6, ".1f"),
        ("l1tex__t_sector_hit_rate.pct", "L1 hit %", 1, ".1f"),
        ("sm__warps_active.avg.pct_of_peak_sustained_active", "warps active %", 1, ".1f")]
with open(md, "w") as f:
    f.write(f"# Nsight Compute: product kernels on {matrix}\n\n")
    f.write(f"Commit {prov.get('commit', 'unknown')} (dirty: {prov.get('dirty')}), {prov.get('device', 'unknown GPU')}, driver {driver or 'unknown'} "
            f"(CUDA {prov.get('cuda_driver', '?')}), CUDA runtime {prov.get('cuda_runtime', '?')}, {(prov.get('petsc') or 'PETSc ?').strip()}.\n\n")
    f.write(f"bench_spmv -types {types}; median over each kernel's profiled launches (launches: count).\n\n")
    f.write("| kernel | launches | " + " | ".join(c[1] for c in cols) + " |\n")
    f.write("|---|---:|" + "---:|" * len(cols) + "\n")
    for k in order:
        n = len(vals[k].get(cols[0][0], []))
        cells = [format(statistics.median(vals[k][m]) * s, fm) if m in vals[k] else "–" for m, _, s, fm in cols]
        f.write(f"| `{k}` | {n} | " + " | ".join(cells) + " |\n")
print(open(md).read())
PY
