#!/bin/sh
# PETSc's own tutorial src/ksp/ksp/tutorials/ex2.c, unmodified, with -dll_append and -mat_type TYPE: it must
# use the type (ascii_info view), and take the iterations that aijcusparse takes.
#   petsc_ex2.sh EX2 LIBRARY TYPE TITLE     (TYPE cmrs, TITLE CMRS as in the viewer)
set -eu
ex2=$1
lib=$2
type=$3
title=$4
common="-m 300 -n 200 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-10 -vec_type cuda"
ref=$("$ex2" $common -mat_type aijcusparse)
out=$("$ex2" $common -dll_append "$lib" -mat_type "$type" -mat_view ::ascii_info)
printf '%s\n--- aijcusparse: %s\n' "$out" "$ref"
its() { printf '%s\n' "$1" | sed -n 's/.*iterations \([0-9][0-9]*\).*/\1/p'; }
fail() { echo "FAILED: $*"; exit 1; }
printf '%s\n' "$out" | grep -q "type: seqaijcusparse$type" || fail "the matrix is not of type seqaijcusparse$type"
printf '%s\n' "$out" | grep -q "$title GPU format" || fail "no $title format statistics in -mat_view ::ascii_info"
[ -n "$(its "$ref")" ] || fail "no iteration count from aijcusparse"
[ "$(its "$out")" = "$(its "$ref")" ] || fail "$type took $(its "$out") iterations, aijcusparse $(its "$ref")"
echo "ex2: $type and aijcusparse both take $(its "$ref") iterations"
