#!/bin/sh
# Installs the build into a staging prefix, then builds and runs a downstream project against it
#   check.sh BUILD_DIR SOURCE_DIR WORK_DIR PETSC_PKGCONFIG_PATH
set -eu
build=$1 src=$2 work=$3
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig:$4${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
cmake -S "$src/tests/install" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" >"$work.log" 2>&1 || { cat "$work.log"; exit 1; }
cmake --build "$work/build" >>"$work.log" 2>&1 || { cat "$work.log"; exit 1; }
"$work/build/consumer"
"$work/build/consumer_pc"
