#!/bin/bash
# The gpu tests under a debug PETSc (--with-debugging=1, built from a source patched by conf/petsc/patch-derived-types.sh,
# as `DEBUG=1 bash conf/petsc/build-from-source.sh` builds it) with -malloc_debug -malloc_dump: every test passes and
# no PETSc memory is left allocated at PetscFinalize(). On a GPU host, from the project root, inside .gpu/run.sh:
#   bash .gpu/run.sh bash tests/gpu/debug_petsc.sh TARBALL OUTDIR [CTEST_ARGS...]
# TARBALL: that PETSc's prefix packed as a folder petsc-cuda-debug/ (installed to /opt/petsc-cuda-debug), or - when
# /opt/petsc-cuda-debug is there already. Builds the project in build-debug/ and runs ctest -L gpu (CTEST_ARGS added)
# through other_petsc.sh; writes OUTDIR/ctest-petsc-cuda-debug.log, OUTDIR/LastTest.log and OUTDIR/leaks.txt (the
# -malloc_dump reports of the test logs, each with its test's name; PETSc's own, explained below, in petsc-leaks.txt);
# exits non-zero when a test fails or memory is left.
set -uo pipefail
case "${1:-}" in '' | -h | -help | --help)
  sed -n '2,10p' "$0" | sed -E 's/^# ?//'
  exit 0
  ;;
esac
tarball=$1
out=$2
shift 2
mkdir -p "$out"
if [ "$tarball" != - ]; then mkdir -p /opt && tar xJf "$tarball" -C /opt || exit 1; fi
[ -f /opt/petsc-cuda-debug/lib/libpetsc.so ] || { echo "no PETSc in /opt/petsc-cuda-debug"; exit 1; }
grep -q "define PETSC_USE_DEBUG 1" /opt/petsc-cuda-debug/include/petscconf.h || { echo "/opt/petsc-cuda-debug is not a debug build"; exit 1; }
# the build and the tests as against any other PETSc, with PETSc's memory checks in the tests; STEP_TIMEOUT (seconds, 0 or
# unset: none) stops them after that long, and the reports of the tests that ran are still sorted below
OTHER_PETSC=petsc-cuda-debug BUILD_DIR=build-debug CTEST_TIMEOUT=240 TEST_PETSC_OPTIONS="-malloc_debug -malloc_dump" \
  timeout "${STEP_TIMEOUT:-0}" bash "$(dirname "$0")/other_petsc.sh" - "$out" "$@"
rc=$?
[ $rc = 124 ] && echo "stopped after STEP_TIMEOUT=${STEP_TIMEOUT:-} s; the memory reports below are those of the tests that ran"
# -malloc_dump prints one report per block left: "[rank] N bytes", then the stack of its allocation, one line per
# function. Each report goes, with its test's name, to leaks.txt, except one that PETSc itself leaves: when a
# SetFromOptions() stops with an error inside PetscOptionsBegin()/End() (the _options_errors tests give bad option values
# on purpose), PETSc never frees the prefix and title that PetscOptionsBegin_Private() copied; those go to
# petsc-leaks.txt and do not count.
: > "$out/leaks.txt"
: > "$out/petsc-leaks.txt"
awk -v ours="$out/leaks.txt" -v petsc="$out/petsc-leaks.txt" '
  function flush() { if (b != "") { print b > ((t ~ /_options_errors$/ && b ~ /PetscOptionsBegin_Private\(\)/) ? petsc : ours) } b = "" }
  /^[0-9]+\/[0-9]+ Testing: / { flush(); t = $3; next }
  /^\[ ?[0-9]+\] ?Total space allocated|^\[ ?[0-9]+\] ?[0-9]+ bytes/ { flush(); b = t ": " $0; next }
  b != "" && /^[[:space:]]+\[ ?[0-9]+\]/ { b = b "\n" t ":   " $0; next }
  { flush() }
  END { flush() }' build-debug/Testing/Temporary/LastTest.log 2> /dev/null
cp build-debug/Testing/Temporary/LastTest.log "$out/LastTest.log" 2> /dev/null
if [ -s "$out/leaks.txt" ]; then
  echo "memory left at PetscFinalize(): $(wc -l < "$out/leaks.txt") lines in $out/leaks.txt"
  rc=1
fi
exit $rc
