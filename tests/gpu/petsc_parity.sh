#!/bin/sh
# One of PETSc's own programs, unmodified, once with aijcusparse and once with TYPE (loaded with -dll_append). With
# TYPE it must
#   - take the same iterations (every "iterations N" that -ksp_converged_reason prints, in order), each within one:
#     the kernels sum a row in another order than cuSPARSE, and the rounding may move a stop by one iteration
#     (under MPI within aijcusparse's own spread over two runs, if that is larger);
#   - keep every operator that aijcusparse's run shows as seqaijcusparse (-ksp_view: all the multigrid levels) in TYPE;
#   - compute on the GPU every matrix-matrix product that aijcusparse's run computes there (GPU %F in -log_view).
#   petsc_parity.sh PROGRAM LIBRARY TYPE TYPE_OPTION ARGS...      (TYPE_OPTION: -mat_type or -dm_mat_type)
# The environment variable LAUNCH runs the program under MPI (LAUNCH="mpiexec -n 2"); the type's names then begin with mpi.
set -eu
LAUNCH=${LAUNCH:-}
exe=$1
lib=$2
type=$3
opt=$4
shift 4
views="-ksp_converged_reason -ksp_view -log_view"
ref=$($LAUNCH "$exe" "$@" $opt aijcusparse $views) || { printf '%s\n' "$ref"; echo "FAILED: the run with aijcusparse"; exit 1; }
out=$($LAUNCH "$exe" "$@" -dll_append "$lib" $opt "$type" $views) || { printf '%s\n' "$out"; echo "FAILED: the run with $type"; exit 1; }
fail() {
  printf '%s\n' "$out"
  echo "FAILED: $*"
  exit 1
}
its() { printf '%s\n' "$1" | grep -o 'iterations [0-9][0-9]*' | tr '\n' ' '; }
[ -n "$(its "$ref")" ] || fail "no iteration count from aijcusparse"
# equal iteration counts of solves that fail prove nothing
! printf '%s\n' "$ref" | grep -q 'did not converge' || fail "a solve with aijcusparse did not converge: choose options under which it does"
! printf '%s\n' "$out" | grep -q 'did not converge' || fail "a solve with $type did not converge"
counts() { its "$1" | tr -cd '0-9 '; }
# under MPI, aijcusparse's own counts vary from run to run (cuSPARSE's default SpMV is not deterministic): a second
# run of aijcusparse gives the spread, and each count of TYPE may differ from the first run's by max(1, spread); the two
# runs of aijcusparse must take as many solves, each spread at most max(5, a fifth of the count): beyond, the comparison
# would prove nothing
ref2=$ref
if [ -n "$LAUNCH" ]; then
  ref2=$($LAUNCH "$exe" "$@" $opt aijcusparse -ksp_converged_reason) || { printf '%s\n' "$ref2"; echo "FAILED: the second run with aijcusparse"; exit 1; }
fi
close=$(awk -v a="$(counts "$out")" -v b="$(counts "$ref")" -v c="$(counts "$ref2")" 'BEGIN {
  n = split(a, x, " "); m = split(b, y, " "); k = split(c, z, " ")
  if (m != k) { print "spread"; exit }
  ok = n == m
  for (i = 1; i <= m; i++) {
    tol = y[i] - z[i]; if (tol < 0) tol = -tol
    if (tol > 5 && tol > y[i] / 5) { print "spread"; exit }
    if (tol < 1) tol = 1
    if (i <= n && (x[i] - y[i] > tol || y[i] - x[i] > tol)) ok = 0
  }
  print ok ? "yes" : "no" }')
[ "$close" != spread ] || fail "aijcusparse's two runs took $(its "$ref") and $(its "$ref2"): too far apart to compare with"
[ "$close" = yes ] || fail "$type took $(its "$out"), aijcusparse $(its "$ref") (and $(its "$ref2") in a second run)"
# cuSPARSE's factors (of coarse solves, ILU) are seqaijcusparse in both runs
count() { printf '%s\n' "$1" | grep -c "$2" || true; }
nref=$(count "$ref" 'type: \(seq\|mpi\)aijcusparse$')
fref=$(count "$ref" 'package used to perform factorization: cusparse')
nout=$(count "$out" "type: \\(seq\\|mpi\\)aijcusparse$type\$")
nplain=$(count "$out" 'type: \(seq\|mpi\)aijcusparse$')
[ "$nref" -gt "$fref" ] || fail "aijcusparse's run shows no (seq|mpi)aijcusparse operator"
[ "$nout" = $((nref - fref)) ] && [ "$nplain" = "$fref" ] || fail "$nout matrices of type (seq|mpi)aijcusparse$type and $nplain of type (seq|mpi)aijcusparse, where aijcusparse has $nref, $fref of them factors"
# GPU %F (the last column of -log_view) of the product events
gpuf() { printf '%s\n' "$1" | awk '/^(MatPtAP|MatMatMult|MatTrnMatMult|MatMatTrnMult|MatRARt|MatMatMatMult|MatTransposeMatMult)/ {print $1, $NF}' | sort; }
gref=$(gpuf "$ref")
gout=$(gpuf "$out")
bad=$(printf '%s\n' "$gref" | while read -r ev f; do
  [ -n "$ev" ] || continue
  g=$(printf '%s\n' "$gout" | awk -v e="$ev" '$1 == e {print $2}')
  if [ "$f" != 0 ] && [ "${g:-0}" = 0 ]; then echo "$ev: GPU %F $f with aijcusparse, ${g:-none} with $type"; fi
done)
[ -z "$bad" ] || fail "$bad"
echo "$type: $(its "$out"); aijcusparse: $(its "$ref") and $(its "$ref2"); $nout operators of type seqaijcusparse$type; product events on the GPU:"
printf '%s\n' "$gout" | sed 's/^/  /'
