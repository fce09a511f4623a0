#!/bin/sh
# Configuring against an unsupported PETSc stops with one message that names every mismatch. The PETSc is a copy of
# the pkg-config file and petscconf.h of a supported one, with complex scalars, 64-bit indices and no CUDA.
#   unsupported_petsc.sh SOURCE_DIR SUPPORTED_PETSC_DIR WORK_DIR
set -eu
src=$1 petsc=$2 work=$3
rm -rf "$work"
mkdir -p "$work/petsc/include" "$work/petsc/lib/pkgconfig"
sed "s|^prefix=.*|prefix=$work/petsc|" "$petsc/lib/pkgconfig/PETSc.pc" > "$work/petsc/lib/pkgconfig/PETSc.pc"
sed -e 's|^#define PETSC_HAVE_CUDA 1|/* no CUDA */|' -e 's|^#define PETSC_USE_REAL_DOUBLE 1|#define PETSC_USE_REAL_DOUBLE 1\n#define PETSC_USE_COMPLEX 1\n#define PETSC_USE_64BIT_INDICES 1|' \
  "$petsc/include/petscconf.h" > "$work/petsc/include/petscconf.h"
if cmake -S "$src" -B "$work/build" -DPETSC_DIR="$work/petsc" -DPETSCGPUFORMATS_ENABLE_TESTS=OFF -DPETSCGPUFORMATS_ENABLE_EXAMPLES=OFF > "$work/log" 2>&1; then
  cat "$work/log"
  echo "FAILED: configuring against an unsupported PETSc succeeded"
  exit 1
fi
flat=$(tr -s ' \n' '  ' < "$work/log") # CMake wraps its messages
for what in "no CUDA" "complex scalars" "64-bit PetscInt"; do
  printf '%s\n' "$flat" | grep -q "$what" || { cat "$work/log"; echo "FAILED: the configure error does not name: $what"; exit 1; }
done
printf '%s\n' "$flat" | grep -o 'PETSc in [^ ]* ([^)]*) does not fit petsc-gpuformats: [^:]*:[^-]*-[^)]*)' | head -1
