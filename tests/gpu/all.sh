#!/bin/bash
# Everything to check on a GPU host in one call, from the project root after `bash .gpu/run.sh` built build-gpu/:
# the gpu tests, then PETSc's suite with every type (tests/petsc_suite, single-process tests unless SUITE_NP=all),
# stopped at DEADLINE seconds after START (epoch seconds; default: now) so that the outputs are always written.
# Everything goes into one file, OUTDIR/gpu-checks.tar.gz (a tool that returns only a few files gets all of it).
#   bash tests/gpu/all.sh OUTDIR            environment: START, DEADLINE (default 540), SUITE_NP (1 or all; default 1),
#                                           SUITE_TYPES (the suite's -t), JOBS (nproc), STEPS ("ctest suite": either or both)
set -uo pipefail
case "${1:-}" in '' | -h | -help | --help)
  sed -n '2,7p' "$0" | sed -E 's/^# ?//'
  exit 0
  ;;
esac
out=$1
start=${START:-$(date +%s)}
deadline=${DEADLINE:-540}
work=$(mktemp -d)
mkdir -p "$out" "$work/gpu-checks"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > "$work/gpu-checks/gpu.txt" 2>&1
left() { echo $((deadline - ($(date +%s) - start))); }
steps=${STEPS:-ctest suite}
if [[ " $steps " == *" ctest "* ]]; then
  # a test that hangs (a rank waiting for another) is stopped after 120 s, not at the deadline
  timeout "$(left)" ctest --test-dir build-gpu -L gpu -j 6 --timeout 120 --output-on-failure > "$work/gpu-checks/ctest-gpu.log" 2>&1
  echo "ctest rc=$?" | tee -a "$work/gpu-checks/ctest-gpu.log"
  grep -E "tests passed|\*\*\*" "$work/gpu-checks/ctest-gpu.log" | tail -20
fi
t=$(($(left) - 20))
if [[ " $steps " != *" suite "* ]]; then
  :
elif [ "$t" -gt 60 ]; then
  timeout "$t" bash tests/petsc_suite/run.sh -j "${JOBS:-$(nproc)}" -n "${SUITE_NP:-1}" ${SUITE_TYPES:+-t "$SUITE_TYPES"} -T 60 -o "$work/suite" > "$work/gpu-checks/suite-run.log" 2>&1
  echo "suite rc=$?" | tee -a "$work/gpu-checks/suite-run.log"
  tail -8 "$work/gpu-checks/suite-run.log"
  cp "$work/suite/summary.md" "$work/suite/results.tsv" "$work/gpu-checks/" 2> /dev/null
  for d in "$work"/suite/work/*/; do
    [ -d "$d" ] || continue
    n=$(basename "$d")
    cp "$d/test.log" "$work/gpu-checks/suite-test-$n.log" 2> /dev/null
    cp "$d/normdiff.log" "$work/gpu-checks/suite-normdiff-$n.log" 2> /dev/null
  done
else
  echo "no time left for PETSc's suite ($t s)"
fi
tar czf "$out/gpu-checks.tar.gz" -C "$work" gpu-checks
rm -rf "$work"
echo "written: $out/gpu-checks.tar.gz"
