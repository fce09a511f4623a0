#!/bin/bash
# Everything to check on a GPU host in one call, from the project root after `bash .gpu/run.sh` built build-gpu/: the
# steps named in STEPS (default "ctest suite"), in this order, each stopped at DEADLINE seconds after START (epoch seconds;
# default: now) so that the outputs are always written:
#   ctest     the gpu tests (build-gpu/)
#   suite     PETSc's suite with every type (tests/petsc_suite; single-process tests unless SUITE_NP=all; SUITE_TYPES)
#   sanitize  the compute-sanitizer tests, in their own build (build-san/, -DPETSCGPUFORMATS_SANITIZE=ON)
#   debug     the gpu tests under a debug PETSc (tests/gpu/debug_petsc.sh with DEBUG_TARBALL, default .gpu/petsc-debug.tar.xz)
#   debugsuite PETSc's suite under that debug PETSc, with -malloc_debug (the harness adds -malloc_dump), SUITE_NP and
#             SUITE_TYPES as for suite, DEBUG_SUITE_BASELINE as SUITE_BASELINE; the library in build-debug/ (built by the debug
#             step, or here when it is not there, or carried: the step needs only build-debug/libpetscgpuformats.so)
#   petsc325  the gpu tests against PETSc 3.25.4 (tests/gpu/other_petsc.sh with OTHER_PETSC_TARBALL, default .gpu/petsc-3.25.tar.xz)
#   scaling   on a host with 2 GPUs: bench/scaling.sh (strong and weak scaling of the product, each type with
#             mpiaijcusparse's MatMult and with /overlap; MATRICES for its matrices), then ex45's time to solution on
#             1 and 2 GPUs (bench/mg.py; KSP_CASES, KSP_TYPES, KSP_NP, KSP_REPEAT for its options)
#   refresh   bench/run_suite.sh refresh (records with rebuild and host-assembled times), again with
#             -mat_gpuformat_stream_alloc true (the stream-ordered pool; bench-pool/) if 200 s are left, then the build phases (-info)
#   spmv      bench/run_suite.sh for each suite of SPMV_SUITES (default "cmrs sellcs bce rmat"; PETSc's sellcuda
#             included), records with provenance in spmv/SUITE.jsonl, each suite within what is left of the deadline
#   launch    bench/launch_profile.sh (GPU time, the host's issue time and Nsight Compute's kernels per product) on each
#             matrix of LAUNCH_MATRICES ("NAME MATRIX [options]" entries separated by ";"; default the small ones where
#             ours trailed: lap3d27 24^3, circuit 6k, lap3d7 30^3, lap2d5 100^2, circuit 100k, R-MAT scale 14), LAUNCH_TYPES
#             its TYPES; into launch/
#   mg        bench/mg.py (MG_CASES, default its six multigrid cases; MG_TYPES, default its four; MG_REPEAT, default 5; MG_PIN:
#             its --pin, the cores of the one-process runs) into mg/mg.jsonl and mg.md
#   mpi       bench/mpi.sh (the parallel benchmark on 1, 2 and 4 processes sharing the GPU) into mpi/
# Everything goes into one file, OUTDIR/gpu-checks.tar.gz (a tool that returns only a few files gets all of it).
#   bash tests/gpu/all.sh OUTDIR            environment: START, DEADLINE (default 540), STEPS, SUITE_NP (1 or all; default 1),
#                                           SUITE_TYPES (the suite's -t), SUITE_BASELINE (its -B: aijcusparse's results.tsv
#                                           of an earlier run instead of running it), JOBS (nproc), GPU_JOBS (ctest -j, 4: more processes on one GPU slow each many times over), DEBUG_TARBALL,
#                                           CTEST_ARGS (added to the gpu tests' ctest, that of the debug and petsc325 steps too,
#                                           e.g. "-R _mpi_" or "-E _mpi_": the whole
#                                           run takes about 500 s on an H200, too long for one call with the build),
#                                           SANITIZE_ARGS (added to the sanitizer tests' ctest, e.g. "-R racecheck"), SANITIZE_JOBS (6),
#                                           SANITIZE_CMAKE_ARGS (added to build-san's configure, e.g.
#                                           "-DPETSCGPUFORMATS_SANITIZE_SLOW_COUNT=34")
set -uo pipefail
case "${1:-}" in '' | -h | -help | --help)
  sed -n '2,/^set -uo pipefail/p' "$0" | grep '^#' | sed -E 's/^# ?//'
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
# keep_suite RUN DEST PREFIX: what a tests/petsc_suite/run.sh -o RUN left, into DEST: its summary and results, and each
# type's test log and norm diffs as PREFIXtest-TYPE.log and PREFIXnormdiff-TYPE.log
keep_suite() {
  cp "$1/summary.md" "$1/results.tsv" "$2/" 2> /dev/null
  for d in "$1"/work/*/; do
    [ -d "$d" ] || continue
    cp "$d/test.log" "$2/$3test-$(basename "$d").log" 2> /dev/null
    cp "$d/normdiff.log" "$2/$3normdiff-$(basename "$d").log" 2> /dev/null
  done
}
if [[ " $steps " == *" ctest "* ]]; then
  # a test that hangs (a rank waiting for another) is stopped after 120 s, not at the deadline
  # shellcheck disable=SC2086 # CTEST_ARGS: several arguments
  timeout "$(left)" ctest --test-dir build-gpu -L gpu -j "${GPU_JOBS:-4}" --timeout 120 --output-on-failure ${CTEST_ARGS:-} > "$work/gpu-checks/ctest-gpu.log" 2>&1
  echo "ctest rc=$?" | tee -a "$work/gpu-checks/ctest-gpu.log"
  grep -E "tests passed|\*\*\*" "$work/gpu-checks/ctest-gpu.log" | tail -20
fi
t=$(($(left) - 20))
if [[ " $steps " != *" suite "* ]]; then
  :
elif [ "$t" -gt 60 ]; then
  timeout "$t" bash tests/petsc_suite/run.sh -j "${JOBS:-$(nproc)}" -n "${SUITE_NP:-1}" ${SUITE_TYPES:+-t "$SUITE_TYPES"} ${SUITE_BASELINE:+-B "$SUITE_BASELINE"} -T 60 -o "$work/suite" > "$work/gpu-checks/suite-run.log" 2>&1
  echo "suite rc=$?" | tee -a "$work/gpu-checks/suite-run.log"
  tail -8 "$work/gpu-checks/suite-run.log"
  keep_suite "$work/suite" "$work/gpu-checks" suite-
else
  echo "no time left for PETSc's suite ($t s)"
fi
if [[ " $steps " == *" sanitize "* ]]; then
  t=$(($(left) - 20))
  if [ "$t" -gt 60 ]; then
    # the build too runs within the deadline; the tests get what is left of it, if anything
    # shellcheck disable=SC2016
    # shellcheck disable=SC2086 # SANITIZE_CMAKE_ARGS: several arguments
    timeout "$t" bash -c 'cmake -S . -B build-san -DCMAKE_BUILD_TYPE=Release -DPETSCGPUFORMATS_SANITIZE=ON "${@:2}" && cmake --build build-san -j "$1"' _ "${JOBS:-$(nproc)}" ${SANITIZE_CMAKE_ARGS:-} > "$work/gpu-checks/sanitize-build.log" 2>&1
    rc=$?
    t=$(($(left) - 20))
    if [ "$rc" != 0 ]; then
      echo "the sanitizer build failed or ran out of time (rc $rc)" > "$work/gpu-checks/sanitize.log"
      tail -20 "$work/gpu-checks/sanitize-build.log" >> "$work/gpu-checks/sanitize.log"
    elif [ "$t" -gt 10 ]; then
      # shellcheck disable=SC2086 # SANITIZE_ARGS: several arguments
      timeout "$t" ctest --test-dir build-san -L gpu-sanitize -j "${SANITIZE_JOBS:-6}" --output-on-failure ${SANITIZE_ARGS:-} > "$work/gpu-checks/sanitize.log" 2>&1
      rc=$?
    else
      echo "no time left for the sanitizer tests after their build" > "$work/gpu-checks/sanitize.log"
      rc=124
    fi
    echo "sanitize rc=$rc" | tee -a "$work/gpu-checks/sanitize.log"
    grep -E "tests passed|\*\*\*|ERROR SUMMARY: [1-9]" "$work/gpu-checks/sanitize.log" | tail -20
  else
    echo "no time left for the sanitizer tests ($t s)"
  fi
fi
# gpu_tests_with STEP WHAT SCRIPT TARBALL: one of the scripts that build and run the gpu tests against another PETSc,
# within the deadline, its console in STEP-run.log and its logs in STEP/
gpu_tests_with() {
  local t=$(($(left) - 20))
  if [ "$t" -gt 90 ]; then
    # shellcheck disable=SC2086 # CTEST_ARGS: several arguments
    # STEP_TIMEOUT: debug_petsc.sh stops its tests 30 s before the deadline and still sorts the memory reports of those that ran
    STEP_TIMEOUT=$((t - 30)) timeout "$t" bash "$3" "$4" "$work/gpu-checks/$1" ${CTEST_ARGS:-} > "$work/gpu-checks/$1-run.log" 2>&1
    echo "$1 rc=$?" | tee -a "$work/gpu-checks/$1-run.log"
    tail -20 "$work/gpu-checks/$1-run.log"
  else
    echo "no time left for $2 ($t s)"
  fi
}
if [[ " $steps " == *" debug "* ]]; then
  gpu_tests_with debug "the debug PETSc" tests/gpu/debug_petsc.sh "${DEBUG_TARBALL:-.gpu/petsc-debug.tar.xz}"
fi
if [[ " $steps " == *" debugsuite "* ]]; then
  t=$(($(left) - 20))
  if [ "$t" -gt 120 ]; then
    # shellcheck disable=SC2016
    timeout "$t" bash -c '
      set -e
      [ -f /opt/petsc-cuda-debug/lib/libpetsc.so ] || tar xJf "$1" -C /opt
      if [ ! -f build-debug/libpetscgpuformats.so ]; then
        PETSC_DIR=/opt/petsc-cuda-debug cmake -S . -B build-debug -DCMAKE_BUILD_TYPE=Release > /dev/null
        PETSC_DIR=/opt/petsc-cuda-debug cmake --build build-debug -j "$2" > /dev/null
      fi
      PETSC_DIR=/opt/petsc-cuda-debug PETSC_OPTIONS="${PETSC_OPTIONS:-} -malloc_debug" bash tests/petsc_suite/run.sh -j "$2" -n "$3" ${4:+-t "$4"} \
        ${6:+-B "$6"} -l build-debug/libpetscgpuformats.so -T 120 -o "$5"' _ "${DEBUG_TARBALL:-.gpu/petsc-debug.tar.xz}" "${JOBS:-$(nproc)}" \
      "${SUITE_NP:-1}" "${SUITE_TYPES:-}" "$work/debugsuite" "${DEBUG_SUITE_BASELINE:-}" > "$work/gpu-checks/debugsuite-run.log" 2>&1
    echo "debugsuite rc=$?" | tee -a "$work/gpu-checks/debugsuite-run.log"
    tail -8 "$work/gpu-checks/debugsuite-run.log"
    mkdir -p "$work/gpu-checks/debugsuite"
    keep_suite "$work/debugsuite" "$work/gpu-checks/debugsuite" ""
  else
    echo "no time left for the suite under the debug PETSc ($t s)"
  fi
fi
if [[ " $steps " == *" petsc325 "* ]]; then
  gpu_tests_with petsc325 "the gpu tests against PETSc 3.25" tests/gpu/other_petsc.sh "${OTHER_PETSC_TARBALL:-.gpu/petsc-3.25.tar.xz}"
fi
if [[ " $steps " == *" scaling "* ]]; then
  t=$(($(left) - 20))
  if [ "$t" -gt 120 ]; then
    # no benchmark run starts after two thirds of what is left; ex45 gets the rest
    DEADLINE=$((t * 2 / 3)) timeout "$t" bash bench/scaling.sh "$work/gpu-checks/scaling" > "$work/gpu-checks/scaling-run.log" 2>&1
    echo "scaling rc=$?" | tee -a "$work/gpu-checks/scaling-run.log"
    python3 bench/scaling_report.py "$work/gpu-checks/scaling/scaling.jsonl" > "$work/gpu-checks/scaling/scaling.md" 2>&1
    t=$(($(left) - 20))
    if [ "$t" -gt 60 ]; then
      timeout "$t" python3 bench/mg.py --cases "${KSP_CASES:-ex45_jacobi_200,ex45_gamg_129}" --np "${KSP_NP:-1,2}" --repeat "${KSP_REPEAT:-3}" --results "$work/gpu-checks/scaling/ksp.jsonl" \
        --types "${KSP_TYPES:-aijcusparse,cmrs,cmrs/mat_gpuformat_overlap=true,sellcs,sellcs/mat_gpuformat_overlap=true,bce,bce/mat_gpuformat_overlap=true}" > "$work/gpu-checks/scaling-ksp-run.log" 2>&1
      echo "scaling ksp rc=$?" | tee -a "$work/gpu-checks/scaling-ksp-run.log"
      python3 bench/mg.py --report "$work/gpu-checks/scaling/ksp.jsonl" > /dev/null 2>&1
    fi
    head -40 "$work/gpu-checks/scaling/scaling.md"
  else
    echo "no time left for the scaling benchmark ($t s)"
  fi
fi
if [[ " $steps " == *" refresh "* ]]; then
  t=$(($(left) - 20))
  if [ "$t" -gt 60 ]; then
    # the records without -info (its synchronisations would lengthen the builds), then the phases of one run per matrix
    OUT="$work/gpu-checks/bench" SELLCUDA=0 timeout "$t" bash bench/run_suite.sh refresh > "$work/gpu-checks/refresh-run.log" 2>&1
    echo "refresh rc=$?" | tee -a "$work/gpu-checks/refresh-run.log"
    # the same with the formats' memory from the stream-ordered pool instead of cudaMalloc() (the default on PETSc's default
    # stream; records: "stream_alloc": true), if there is time
    t=$(($(left) - 20))
    if [ "$t" -gt 200 ]; then
      OUT="$work/gpu-checks/bench-pool" SELLCUDA=0 BENCH_ARGS="-mat_gpuformat_stream_alloc true" timeout "$t" bash bench/run_suite.sh refresh > "$work/gpu-checks/refresh-pool-run.log" 2>&1
      echo "refresh (pool) rc=$?" | tee -a "$work/gpu-checks/refresh-pool-run.log"
    fi
    for m in "lap2d5 -grid 2048" "rmat -scale 20 -edge_factor 16" "circuit -rows 4000000" "longrows -rows 1000000 -long_rows 4 -long_len 100000"; do
      t=$(($(left) - 20))
      [ "$t" -gt 10 ] || break
      # shellcheck disable=SC2086
      timeout "$t" build-gpu/examples/bench_spmv -matrix $m -types aijcusparse,cmrs,sellcs,bce -batches 1 -reps 5 -warmup 1 -info :mat >> "$work/gpu-checks/phases.log" 2>&1
    done
    python3 bench/build_phases.py "$work/gpu-checks/phases.log" > "$work/gpu-checks/build-phases.md" 2>&1
    head -30 "$work/gpu-checks/build-phases.md"
  else
    echo "no time left for the refresh benchmark ($t s)"
  fi
fi
if [[ " $steps " == *" spmv "* ]]; then
  for suite in ${SPMV_SUITES:-cmrs sellcs bce rmat}; do
    t=$(($(left) - 20))
    if [ "$t" -le 30 ]; then
      echo "no time left for the $suite suite ($t s)"
      break
    fi
    OUT="$work/gpu-checks/spmv" timeout "$t" bash bench/run_suite.sh "$suite" > "$work/gpu-checks/spmv-$suite-run.log" 2>&1
    echo "spmv $suite rc=$?" | tee -a "$work/gpu-checks/spmv-$suite-run.log"
  done
fi
if [[ " $steps " == *" launch "* ]]; then
  mkdir -p "$work/gpu-checks/launch"
  IFS=';' read -r -a entries <<< "${LAUNCH_MATRICES:-lap3d27-24 lap3d27 -grid 24;circuit-6k circuit -rows 6000 -circuit_long_rows 4 -circuit_long_len 2000;lap3d7-30 lap3d7 -grid 30;lap2d5-100 lap2d5 -grid 100;circuit-100k circuit -rows 100000 -circuit_long_rows 4 -circuit_long_len 2000;rmat-14 rmat -scale 14 -edge_factor 16}"
  for entry in "${entries[@]}"; do
    t=$(($(left) - 20))
    if [ "$t" -le 30 ]; then
      echo "no time left for launch_profile.sh on $entry ($t s)"
      break
    fi
    # shellcheck disable=SC2086 # the entry: a name, a matrix and its options
    TYPES=${LAUNCH_TYPES:-} timeout "$t" bash bench/launch_profile.sh "$work/gpu-checks/launch" $entry > "$work/gpu-checks/launch/${entry%% *}.stdout" 2>&1
    echo "launch ${entry%% *} rc=$?"
  done
fi
if [[ " $steps " == *" mg "* ]]; then
  t=$(($(left) - 20))
  if [ "$t" -gt 60 ]; then
    mkdir -p "$work/gpu-checks/mg"
    timeout "$t" python3 bench/mg.py ${MG_CASES:+--cases "$MG_CASES"} ${MG_TYPES:+--types "$MG_TYPES"} ${MG_PIN:+--pin "$MG_PIN"} --repeat "${MG_REPEAT:-5}" --results "$work/gpu-checks/mg/mg.jsonl" > "$work/gpu-checks/mg/mg-run.log" 2>&1
    echo "mg rc=$?" | tee -a "$work/gpu-checks/mg/mg-run.log"
    python3 bench/mg.py --report "$work/gpu-checks/mg/mg.jsonl" > /dev/null 2>&1
    head -40 "$work/gpu-checks/mg/mg.md" 2> /dev/null
  else
    echo "no time left for bench/mg.py ($t s)"
  fi
fi
if [[ " $steps " == *" mpi "* ]]; then
  t=$(($(left) - 20))
  if [ "$t" -gt 60 ]; then
    timeout "$t" bash bench/mpi.sh "$work/gpu-checks/mpi" > "$work/gpu-checks/mpi-run.log" 2>&1
    echo "mpi rc=$?" | tee -a "$work/gpu-checks/mpi-run.log"
    tail -30 "$work/gpu-checks/mpi/mpi.log" 2> /dev/null
  else
    echo "no time left for bench/mpi.sh ($t s)"
  fi
fi
tar czf "$out/gpu-checks.tar.gz" -C "$work" gpu-checks
rm -rf "$work"
echo "written: $out/gpu-checks.tar.gz"
