#!/bin/bash
# The gpu tests against a second PETSc (3.25.4 beside the default 3.22.5). On a GPU host, from the project root, inside
# .gpu/run.sh (which installs the default PETSc and sets PETSC_DIR to it; this script points PETSC_DIR elsewhere):
#   bash .gpu/run.sh bash tests/gpu/other_petsc.sh TARBALL OUTDIR [CTEST_ARGS...]
# TARBALL: that PETSc's prefix packed as one folder NAME/ (for 3.25.4: petsc-cuda-3.25/, as
# `PETSC_VERSION=3.25.4 bash conf/petsc/build-from-source.sh` installs it, packed with `tar cJf petsc-3.25.tar.xz -C /opt
# petsc-cuda-3.25`), installed to /opt/NAME; or - with NAME already in /opt (OTHER_PETSC, default petsc-cuda-3.25).
# Builds the project in BUILD_DIR (default build-NAME/), runs ctest -L gpu -j GPU_JOBS (4) there (CTEST_ARGS added; CTEST_TIMEOUT per test,
# default 120 s; TEST_PETSC_OPTIONS added to PETSC_OPTIONS for the tests) and writes OUTDIR/ctest-NAME.log; exits non-zero
# when a test fails.
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
name=${OTHER_PETSC:-petsc-cuda-3.25}
if [ "$tarball" != - ]; then
  name=$(tar tJf "$tarball" | head -n 1 | cut -d/ -f1)
  mkdir -p /opt && tar xJf "$tarball" -C /opt || exit 1
fi
[ -f "/opt/$name/lib/libpetsc.so" ] || { echo "no PETSc in /opt/$name"; exit 1; }
export PETSC_DIR=/opt/$name
echo "PETSc $(sed -n 's/^Version: //p' "$PETSC_DIR"/lib/pkgconfig/[Pp][Ee][Tt][Ss][Cc].pc | head -n 1) in $PETSC_DIR"
build=${BUILD_DIR:-build-$name}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release > "$out/configure-$name.log" 2>&1 || { tail -30 "$out/configure-$name.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" > "$out/build-$name.log" 2>&1 || { tail -40 "$out/build-$name.log"; exit 1; }
PETSC_OPTIONS="${PETSC_OPTIONS:-} ${TEST_PETSC_OPTIONS:-}" ctest --test-dir "$build" -L gpu -j "${GPU_JOBS:-4}" --timeout "${CTEST_TIMEOUT:-120}" \
  --output-on-failure "$@" > "$out/ctest-$name.log" 2>&1
rc=$?
grep -E "tests passed|\*\*\*" "$out/ctest-$name.log" | tail -20
exit $rc
