#!/bin/bash
# recheck.sh - the PETSc suite's cases that failed with our types, run alone outside PETSc's harness, to check a fix or
# narrow down a failure quickly: each example built from the installed PETSc's sources with mpicc, run with the plugin
# appended. On a GPU host, from the project root, inside .gpu/run.sh (which builds build-gpu/):
#   bash .gpu/run.sh bash tests/petsc_suite/recheck.sh
# Prints, per case, what to compare with PETSc's expected output: no "function name:" line under -checkfunctionlist
# (factors of ours: mat/tests/ex28, ksp/ksp/tutorials/ex46), the type name that MatConvert() gives (mat/tests/ex18), the
# repeated product into a host dense result (mat/tests/ex237 -check), MatConvert() of a MATTRANSPOSEVIRTUAL on two
# processes (mat/tests/ex2 -rectA), and the parallel PtAP of mat/tests/ex62 (test 14: a 4 x 4 system) on 2 and 3
# processes, with the product's result in our format and kept as mpiaijcusparse, against mpiaijcusparse itself. Each
# run has a time limit (timeout); its exit status is printed (rc).
# Environment: PETSC_DIR (set by run.sh), LIB (build-gpu/libpetscgpuformats.so), TYPE (cmrs; ex62 also runs sellcs and bce).
case "${1:-}" in -h | -help | --help)
  sed -n '2,12p' "$0" | sed -E 's/^# ?//'
  exit 0
  ;;
esac
set -u
E=$PETSC_DIR/share/petsc/examples/src
D=$PETSC_DIR/share/petsc/datafiles/matrices
LIB=${LIB:-$PWD/build-gpu/libpetscgpuformats.so}
T=${TYPE:-cmrs}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
for f in mat/tests/ex28 mat/tests/ex18 mat/tests/ex62 mat/tests/ex237 mat/tests/ex2 ksp/ksp/tutorials/ex46; do
  mpicc -O1 -I"$PETSC_DIR/include" "$E/$f.c" -o "$W/$(basename $f)" -L"$PETSC_DIR/lib" -Wl,-rpath,"$PETSC_DIR/lib" -lpetsc -lm || echo "build of $f failed"
done
for ft in lu cholesky ilu icc; do
  echo "== ex28 $ft, solver cusparse, -checkfunctionlist"
  timeout 30 "$W/ex28" -mat_solver_type cusparse -mat_type "$T" -mat_factor_type $ft -checkfunctionlist -dll_append "$LIB" 2>&1 | tail -3
done
for t in "$T" aijcusparse; do
  echo "== ex46 -dm_mat_type $t, ILU, solver cusparse named, -checkfunctionlist"
  timeout 30 "$W/ex46" -dm_mat_type "$t" -dm_vec_type cuda -random_exact_sol -pc_type ilu -pc_factor_mat_solver_type cusparse -checkfunctionlist -dll_append "$LIB" 2>&1 | tail -3
done
for c in seq mpi; do
  for m in seq mpi; do
    echo "== ex18 -convname ${c}aijcusparse$T -mat_type ${m}aijcusparse$T"
    timeout 30 "$W/ex18" -diag 0.12 -convname "${c}aijcusparse$T" -zerorhs 0 -mat_type "${m}aijcusparse$T" -dll_append "$LIB" 2>&1 | grep -m4 "type:\|ERROR"
  done
done
echo "== ex237 -type aij,seqaijcusparse$T -check -trans"
timeout 60 "$W/ex237" -f "$D/spd-real-int32-float64" -bs 1,2,3 -N 1,2,18 -check -trans -type "aij,seqaijcusparse$T" -dll_append "$LIB" 2>&1 | grep -v Benchmarking | tail -8
echo "rc=${PIPESTATUS[0]}"
echo "== ex2 -rectA on 2 processes"
timeout 60 mpiexec -n 2 "$W/ex2" -mat_type "mpiaijcusparse$T" -rectA -dll_append "$LIB" > "$W/ex2.log" 2>&1
echo "rc=$?"
grep -m3 "PETSC ERROR" "$W/ex2.log"
X="-fA $D/tiny_system -fB $D/tiny_system -dll_append $LIB -mat_form_explicit_transpose"
ex62() { # NPROCS ARGS...
  local np=$1
  shift
  echo "== ex62 test 14 on $np processes: $*"
  # shellcheck disable=SC2086
  timeout 40 mpiexec -n "$np" "$W/ex62" "$@" $X > "$W/ex62.log" 2>&1
  echo "rc=$?"
  grep -m3 "Error in\|PETSC ERROR: [A-Z]" "$W/ex62.log"
}
ex62 3 -A_mat_type "mpiaijcusparse$T" -B_mat_type "mpiaijcusparse$T"
ex62 3 -A_mat_type "mpiaijcusparse$T" -B_mat_type mpiaijcusparse
ex62 3 -A_mat_type mpiaijcusparse -B_mat_type "mpiaijcusparse$T"
ex62 3 -A_mat_type "mpiaijcusparse$T" -B_mat_type "mpiaijcusparse$T" -mat_gpuformat_product_min_rows 1000000
ex62 2 -A_mat_type "mpiaijcusparse$T" -B_mat_type "mpiaijcusparse$T"
ex62 3 -A_mat_type mpiaijcusparsesellcs -B_mat_type mpiaijcusparsesellcs
ex62 3 -A_mat_type mpiaijcusparsebce -B_mat_type mpiaijcusparsebce
ex62 3 -A_mat_type mpiaijcusparse -B_mat_type mpiaijcusparse
ex62 3 -A_mat_type mpiaijcusparse -B_mat_type mpiaijcusparse -PtAP_mat_product_algorithm_backend_cpu -matptap_backend_cpu
