#!/bin/bash
# examples/ksp_solve with TYPE against the same run with aijcusparse: both converge, the right-hand sides b = A x_exact
# (x_exact random, the same in both runs) have the same norm within 1e-10 (relative), TYPE's iteration count is within
# one of aijcusparse's (the kernels sum each row in another order), and its solution error is within 10 times
# aijcusparse's (and below 1e-4); every number must be one (nan is not). LAUNCH (e.g. "mpiexec -n 2") runs both under MPI.
#   ksp_solve_check.sh KSP_SOLVE TYPE ARGS...
set -euo pipefail
exe=$1
type=$2
shift 2
LAUNCH=${LAUNCH:-}
ref=$($LAUNCH "$exe" -mat_type aijcusparse "$@") || { printf '%s\n' "$ref"; echo "FAILED: the run with aijcusparse"; exit 1; }
out=$($LAUNCH "$exe" -mat_type "$type" "$@") || { printf '%s\n' "$out"; echo "FAILED: the run with $type"; exit 1; }
printf '%s\n' "$out"
field() { printf '%s\n' "$1" | sed -n "s/^$2 //p" | head -n 1; }
t=$(field "$out" "Matrix type")
case $t in *"$type"*) ;; *) echo "FAILED: the matrix is of type '$t', not $type"; exit 1 ;; esac
for v in "$ref" "$out"; do
  case $(field "$v" "Converged reason") in CONVERGED_*) ;; *) echo "FAILED: not converged: $(field "$v" "Converged reason")"; exit 1 ;; esac
done
awk -v a="$(field "$out" Iterations)" -v b="$(field "$ref" Iterations)" -v e="$(field "$out" "Relative error")" -v r="$(field "$ref" "Relative error")" \
  -v nb="$(field "$out" "Right-hand side norm")" -v rb="$(field "$ref" "Right-hand side norm")" -v t="$type" 'BEGIN {
  num = "^[0-9]+([.][0-9]*)?([eE][-+]?[0-9]+)?$"
  if (a !~ /^[0-9]+$/ || b !~ /^[0-9]+$/ || e !~ num || r !~ num || nb !~ num || rb !~ num) {
    printf "FAILED: not numbers: iterations %s and %s, errors %s and %s, right-hand side norms %s and %s\n", a, b, e, r, nb, rb; exit 1 }
  db = nb - rb; if (db < 0) db = -db
  if (rb + 0 <= 0 || db > 1e-10 * rb) { printf "FAILED: %s gives b = A x_exact of norm %s, aijcusparse %s\n", t, nb, rb; exit 1 }
  d = a - b; if (d < 0) d = -d
  if (a == "" || b == "" || d > 1) { printf "FAILED: %s took %s iterations, aijcusparse %s\n", t, a, b; exit 1 }
  if (!(e + 0 <= 10 * (r + 0) + 1e-14) || !(e + 0 <= 1e-4)) { printf "FAILED: %s error %s, aijcusparse %s\n", t, e, r; exit 1 }
  printf "%s: ||A x_exact|| %s (aijcusparse %s), %s iterations (aijcusparse %s), error %s (aijcusparse %s)\n", t, nb, rb, a, b, e, r }'
