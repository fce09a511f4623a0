#!/bin/sh
# Installs the build into a staging prefix, then builds and runs downstream programs against it as users do, all run
# without LD_LIBRARY_PATH: with find_package(petscgpuformats), with CMake's pkg_check_modules, with a plain
#   mpicc consumer.c $(pkg-config --cflags --libs petscgpuformats)
# and a PETSc program that does not link the plugin and loads it with -dll_append in the form the README gives
# (the path that pkg-config's `plugin` variable names); a name PETSc cannot find gives an error that names it.
#   check.sh BUILD_DIR SOURCE_DIR WORK_DIR PETSC_PKGCONFIG_PATH
set -eu
build=$1 src=$2 work=$3
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig:$4${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
cmake -S "$src/tests/install" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" >"$work.log" 2>&1 || { cat "$work.log"; exit 1; }
cmake --build "$work/build" >>"$work.log" 2>&1 || { cat "$work.log"; exit 1; }
cc=${MPICC:-mpicc}
# shellcheck disable=SC2046
"$cc" -o "$work/consumer_plain" "$src/tests/install/consumer.c" $(pkg-config --cflags --libs petscgpuformats) >>"$work.log" 2>&1 || { cat "$work.log"; exit 1; }
petsclib=$(pkg-config --variable=libdir PETSc)
# shellcheck disable=SC2046
"$cc" -o "$work/loader" "$src/tests/install/loader.c" $(pkg-config --cflags --libs PETSc) "-Wl,-rpath,$petsclib" >>"$work.log" 2>&1 || { cat "$work.log"; exit 1; }
unset LD_LIBRARY_PATH
"$work/build/consumer"
"$work/build/consumer_pc"
"$work/consumer_plain"
plugin=$(pkg-config --variable=plugin petscgpuformats)
[ -f "$plugin" ] || { echo "pkg-config's plugin variable names '$plugin', which is not a file"; exit 1; }
"$work/loader" -dll_append "$plugin"
# a name PETSc cannot find: an error that names it (run from an empty folder, where a relative name finds nothing)
mkdir -p "$work/empty"
if out=$(cd "$work/empty" && "$work/loader" -dll_append libpetscgpuformats.so 2>&1); then
  echo "-dll_append libpetscgpuformats.so from a folder without it did not fail:"
  printf '%s\n' "$out"
  exit 1
fi
printf '%s\n' "$out" | grep -q 'libpetscgpuformats.so' || { printf '%s\n' "$out"; echo "the error does not name the library"; exit 1; }
echo "a bare -dll_append name fails with an error that names it:"
printf '%s\n' "$out" | grep -m 2 'PETSC ERROR: [A-Z]' || true
