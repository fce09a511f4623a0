#!/bin/sh
# PETSc's own tutorial src/ksp/ksp/tutorials/ex2.c, unmodified, with -dll_append and -mat_type cmrs: it must
# use the type (ascii_info view), and take the iterations that aijcusparse takes.
#   petsc_ex2.sh EX2 LIBRARY
set -eu
ex2=$1
lib=$2
common="-m 300 -n 200 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-10 -vec_type cuda"
ref=$("$ex2" $common -mat_type aijcusparse)
out=$("$ex2" $common -dll_append "$lib" -mat_type cmrs -mat_view ::ascii_info)
printf '%s\n--- aijcusparse: %s\n' "$out" "$ref"
its() { printf '%s\n' "$1" | sed -n 's/.*iterations \([0-9][0-9]*\).*/\1/p'; }
fail() { echo "FAILED: $*"; exit 1; }
printf '%s\n' "$out" | grep -q "type: seqaijcusparsecmrs" || fail "the matrix is not of type seqaijcusparsecmrs"
printf '%s\n' "$out" | grep -q "CMRS GPU format" || fail "no CMRS format statistics in -mat_view ::ascii_info"
[ -n "$(its "$ref")" ] || fail "no iteration count from aijcusparse"
[ "$(its "$out")" = "$(its "$ref")" ] || fail "cmrs took $(its "$out") iterations, aijcusparse $(its "$ref")"
echo "ex2: cmrs and aijcusparse both take $(its "$ref") iterations"
