#!/bin/bash
# Makes a Debian (bookworm) machine ready for petsc-gpuformats, then configures and builds it.
#   1. apt packages: compilers, CMake, OpenMPI, BLAS/LAPACK, clang-format (needs root or sudo);
#   2. PETSc 3.22.5 with CUDA in $PETSC_DIR (default /opt/petsc-cuda): extracted from the prebuilt tarball
#      that PETSC_PREBUILT_TARBALL names (built for /opt/petsc-cuda), otherwise built from Debian's source
#      package with conf/petsc/build-from-source.sh (about 10 minutes on 2 cores);
#   3. cmake configure and build in $BUILD_DIR (default build/).
# Idempotent: packages and a PETSc 3.22 already present are kept, and the build is incremental.
# The CUDA toolkit (nvcc, CUDA 12.x or 13) must already be installed in /usr/local/cuda.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
PETSC_DIR=${PETSC_DIR:-/opt/petsc-cuda}
BUILD_DIR=${BUILD_DIR:-$root/build}
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
export PATH="$PATH:/usr/local/cuda/bin"

packages="cmake g++ make pkg-config libopenmpi-dev openmpi-bin liblapack-dev libblas-dev xz-utils python3 clang-format"
missing=""
for p in $packages; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  echo "setup: installing$missing"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
command -v nvcc >/dev/null || { echo "setup: nvcc not found; install the CUDA toolkit in /usr/local/cuda" >&2; exit 1; }

if grep -qs '^Version: 3\.22\.' "$PETSC_DIR/lib/pkgconfig/PETSc.pc" && [ -f "$PETSC_DIR/lib/libpetsc.so" ]; then
  echo "setup: PETSc $(sed -n 's/^Version: //p' "$PETSC_DIR/lib/pkgconfig/PETSc.pc") in $PETSC_DIR"
elif [ -n "${PETSC_PREBUILT_TARBALL:-}" ]; then
  [ "$PETSC_DIR" = /opt/petsc-cuda ] || { echo "setup: the prebuilt PETSc is built for /opt/petsc-cuda, not $PETSC_DIR" >&2; exit 1; }
  echo "setup: extracting $PETSC_PREBUILT_TARBALL into /opt"
  $sudo mkdir -p /opt
  $sudo tar xJf "$PETSC_PREBUILT_TARBALL" -C /opt
else
  echo "setup: building PETSc 3.22.5 from Debian's source package into $PETSC_DIR"
  $sudo env PREFIX="$PETSC_DIR" bash "$root/conf/petsc/build-from-source.sh"
fi
# The prebuilt PETSc links CUDA from /usr/local/cuda/lib; some CUDA installs only have lib64.
[ -e /usr/local/cuda/lib ] || $sudo ln -s lib64 /usr/local/cuda/lib

cmake -S "$root" -B "$BUILD_DIR" -DPETSC_DIR="$PETSC_DIR" -DCMAKE_BUILD_TYPE=Release >"$BUILD_DIR.configure.log" 2>&1 || { tail -40 "$BUILD_DIR.configure.log"; exit 1; }
cmake --build "$BUILD_DIR" -j "$(nproc)" >"$BUILD_DIR.build.log" 2>&1 || { tail -60 "$BUILD_DIR.build.log"; exit 1; }
echo "setup: built in $BUILD_DIR; run the tests with: ctest --test-dir $BUILD_DIR --output-on-failure"
