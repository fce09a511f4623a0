#!/usr/bin/env bash
# PETSCDIFF wrapper that run.sh sets for our types (the harness reads PETSCDIFF; see config/example_template.py).
# It runs PETSc's petscdiff with the same arguments and returns its status and output unchanged: the verdict is
# the harness's. When petscdiff fails, it runs it once more on a copy of the test's output in which the type's
# names are mapped back (seqaijcusparseT, mpiaijcusparseT -> seq/mpiaijcusparse, T -> aijcusparse) and the lines
# that our types' MatView() adds with ASCII_INFO (the "<TITLE> GPU format" block) are dropped, and appends
#   <run directory> TAB <expected file> TAB <output file> TAB <status> TAB <status after the mapping>
# to $PGF_DIFFLOG, so that the summary can tell a difference in the type's name alone from a real one.
#   environment: PGF_PETSCDIFF (the real petscdiff), PGF_TYPE (T), PGF_DIFFLOG
real=${PGF_PETSCDIFF:-petscdiff}
"$real" "$@"
rc=$?
if [ "$rc" -ne 0 ] && [ -n "${PGF_TYPE:-}" ] && [ -n "${PGF_DIFFLOG:-}" ] && [ $# -ge 2 ]; then
  args=("$@")
  n=${#args[@]}
  f1=${args[n - 2]}
  f2=${args[n - 1]}
  rc2=-1
  if [ -f "$f2" ]; then
    norm="$f2.pgfnorm"
    # the view block: its header line, then every line indented deeper than the header
    awk '/[A-Z]+ GPU format( \(parallel\))?:$/ { match($0, /^ */); skip = RLENGTH; next }
         /[A-Z]+ GPU format in the diagonal blocks/ { next }
         /MatMult\(\): .*-mat_gpuformat_overlap true/ { next }
         skip >= 0 { match($0, /^ */); if (RLENGTH > skip) next; skip = -1 }
         { print }' skip=-1 "$f2" |
      sed -E -e "s/\\b(seq|mpi)aijcusparse${PGF_TYPE}\\b/\\1aijcusparse/g" -e "s/\\b${PGF_TYPE}\\b/aijcusparse/g" > "$norm"
    "$real" "${args[@]:0:n-1}" "$norm" > /dev/null 2>&1
    rc2=$?
    rm -f "$norm"
  fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$PWD" "$f1" "$f2" "$rc" "$rc2" >> "$PGF_DIFFLOG"
fi
exit "$rc"
