#!/usr/bin/env bash
# One step of run.sh for one type, run by the Makefile that run.sh writes in OUTDIR/work (so that the steps of all
# types share one make jobserver: make -j N in total). Not meant to be run by hand.
#   step.sh build|test TYPE
# Environment (from run.sh): PGF_OUT (its work/normdiff.sh is the harness's PETSCDIFF for our types), PGF_PETSC_DIR, PGF_PY, PGF_LIB, PGF_TIMEOUT, PGF_HERE, PGF_BASE_OPTIONS
set -uo pipefail
step=$1
T=$2
W=$PGF_OUT/work/$T
cd "$W" || exit 1
MAKE_ARGS=(-f gmakefile.test "PETSC_DIR=$PGF_PETSC_DIR" "PETSC_ARCH=" "PYTHON=$PGF_PY")
t0=$(date +%s.%N)
case $step in
  build)
    mapfile -t exes < exes.txt
    : > build.log
    # no -j here: the jobserver of the calling make is shared (MAKEFLAGS)
    [ ${#exes[@]} -gt 0 ] && make -k -O "${MAKE_ARGS[@]}" "${exes[@]}" > build.log 2>&1
    n=0
    for e in "${exes[@]}"; do [ -x "$e" ] && n=$((n + 1)); done
    t1=$(date +%s.%N)
    printf '%s\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" > build.seconds
    echo "   $T: built $n of ${#exes[@]} executables in $(cat build.seconds) s"
    ;;
  test)
    mapfile -t labels < labels.txt
    : > test.log
    : > normdiff.log
    if [ ${#labels[@]} -gt 0 ]; then
      if [ "$T" != aijcusparse ]; then
        export PETSC_OPTIONS="${PGF_BASE_OPTIONS} -dll_append ${PGF_LIB}"
        export PETSCDIFF="$PGF_OUT/work/normdiff.sh" PGF_PETSCDIFF="$PGF_PETSC_DIR/lib/petsc/bin/petscdiff" PGF_TYPE="$T" \
          PGF_DIFFLOG="$W/normdiff.log"
      else
        export PETSC_OPTIONS="${PGF_BASE_OPTIONS}"
      fi
      make -k -O "${MAKE_ARGS[@]}" test "gmakesearch=${labels[*]}" "TIMEOUT=$PGF_TIMEOUT" > test.log 2>&1
    fi
    t1=$(date +%s.%N)
    printf '%s\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" > test.seconds
    echo "   $T: ran ${#labels[@]} tests in $(cat test.seconds) s ($(grep -c '^ *ok ' test.log) ok and" \
      "$(grep -c '^not ok ' test.log) not ok TAP lines)"
    ;;
  *)
    echo "step.sh: unknown step $step" >&2
    exit 2
    ;;
esac
exit 0
