#!/usr/bin/env bash
# PETSc's own test suite as a conformance suite for the plugin's matrix types.
# Every test of PETSc's examples whose TEST block names aijcusparse in an args: line is run once per type:
# as PETSc wrote it (type aijcusparse), and with only those args rewritten to one of our types, in a fresh
# copy of the examples tree, through PETSc's own harness (gmakefile.test). See README.md next to this file.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

usage() {
  cat <<EOF
usage: bash tests/petsc_suite/run.sh [-j N] [-o OUTDIR] [-l LIB] [-t "TYPES"] [-s "DIRS"] [-f REGEX] [-n 1|all] [-T SECONDS] [-B TSV] [-b] [-h]

Runs the tests of PETSc's own suite whose TEST blocks name aijcusparse in their args, once per type:
aijcusparse (PETSc's tests unchanged) and each of our types (only the TEST blocks' args rewritten:
seqaijcusparse -> seqaijcusparseT, mpiaijcusparse -> mpiaijcusparseT, aijcusparse -> T), with
-dll_append LIB added to PETSC_OPTIONS for our types. Writes OUTDIR/results.tsv and OUTDIR/summary.md.

  -j N       parallel jobs of make (compilation and tests)   [$(nproc 2>/dev/null || echo 1)]
  -o OUTDIR  output folder; OUTDIR/work/TYPE is deleted and recreated for each type run
             [$REPO/build-petsc-suite]
  -l LIB     libpetscgpuformats.so to -dll_append   [build-gpu/ or build/ of the repository, whichever exists]
  -t TYPES   types, separated by spaces or commas, aijcusparse being PETSc's own   ["aijcusparse cmrs sellcs bce"]
  -s DIRS    directories of PETSc's examples to search, relative to \$PETSC_DIR/share/petsc/examples
             ["src/mat src/ksp src/snes src/ts"]
  -f REGEX   only the source files whose path under src/ matches the extended regular expression (to rerun some)
  -n 1|all   1: only the tests that run on one MPI process (nsize 1)   [all]
  -T SECONDS time limit of each test (the harness's TIMEOUT)   [120]
  -B TSV     do not run aijcusparse: compare with its rows in TSV, the results.tsv of an earlier run (same PETSc,
             same -s and -n; a test missing there is marked not-run for aijcusparse)
  -b         prepare the copies and compile, but run no test (no summary)
  -h         this help

Environment: PETSC_DIR [/opt/petsc-cuda]; PETSC_OPTIONS is kept and passed on (the harness appends its own).
EOF
}

PETSC_DIR=${PETSC_DIR:-/opt/petsc-cuda}
JOBS=$(nproc 2>/dev/null || echo 1)
OUTDIR=$REPO/build-petsc-suite
LIB=
TYPES="aijcusparse cmrs sellcs bce"
DIRS="src/mat src/ksp src/snes src/ts"
NP=all
TIMEOUT=120
BUILD_ONLY=0
BASELINE=
MATCH=
while getopts ":j:o:l:t:s:f:n:T:B:bh" opt; do
  case $opt in
    j) JOBS=$OPTARG ;;
    o) OUTDIR=$OPTARG ;;
    l) LIB=$OPTARG ;;
    t) TYPES=${OPTARG//,/ } ;; # spaces or commas
    s) DIRS=$OPTARG ;;
    n) NP=$OPTARG ;;
    T) TIMEOUT=$OPTARG ;;
    B) BASELINE=$OPTARG ;;
    f) MATCH=$OPTARG ;;
    b) BUILD_ONLY=1 ;;
    h) usage; exit 0 ;;
    :) echo "run.sh: -$OPTARG needs a value" >&2; usage >&2; exit 2 ;;
    *) echo "run.sh: unknown option -$OPTARG" >&2; usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -gt 0 ]; then echo "run.sh: unexpected argument: $1" >&2; usage >&2; exit 2; fi
case $NP in 1 | all) ;; *) echo "run.sh: -n takes 1 or all" >&2; exit 2 ;; esac
case $JOBS in '' | *[!0-9]* | 0) echo "run.sh: -j takes a positive integer" >&2; exit 2 ;; esac
case $TIMEOUT in '' | *[!0-9]* | 0) echo "run.sh: -T takes a positive integer" >&2; exit 2 ;; esac
for t in $TYPES; do
  case $t in *[!a-z0-9]*) echo "run.sh: bad type name '$t'" >&2; exit 2 ;; esac
done
if [ -n "$BASELINE" ]; then
  [ -f "$BASELINE" ] || { echo "run.sh: no baseline file $BASELINE" >&2; exit 2; }
  BASELINE=$(cd "$(dirname "$BASELINE")" && pwd)/$(basename "$BASELINE")
  grep -q "^aijcusparse	" "$BASELINE" || { echo "run.sh: $BASELINE has no aijcusparse results" >&2; exit 2; }
  TYPES=$(for t in $TYPES; do [ "$t" = aijcusparse ] || printf '%s ' "$t"; done)
  TYPES=${TYPES% }
fi
[ -n "$TYPES" ] || { echo "run.sh: no types" >&2; exit 2; }
# make -j runs many mpiexec at once; Open MPI binds each job of one or two ranks to cores 0 and 1, the same two for every
# job, so they would all share two cores: the ranks run unbound (other MPIs ignore the variable)
export OMPI_MCA_hwloc_base_binding_policy=${OMPI_MCA_hwloc_base_binding_policy:-none}

EX=$PETSC_DIR/share/petsc/examples
[ -f "$EX/gmakefile.test" ] && [ -d "$EX/config" ] && [ -d "$EX/src" ] \
  || { echo "run.sh: no PETSc examples and test harness in $EX" >&2; exit 1; }
PETSCDIFF_REAL=$PETSC_DIR/lib/petsc/bin/petscdiff
PY=python3
command -v "$PY" > /dev/null || { echo "run.sh: python3 not found" >&2; exit 1; }

need_lib=0
for t in $TYPES; do [ "$t" = aijcusparse ] || need_lib=1; done
if [ $need_lib = 1 ]; then
  if [ -z "$LIB" ]; then
    for d in build-gpu build; do
      if [ -f "$REPO/$d/libpetscgpuformats.so" ]; then LIB=$REPO/$d/libpetscgpuformats.so; break; fi
    done
  fi
  [ -n "$LIB" ] && [ -f "$LIB" ] || { echo "run.sh: no libpetscgpuformats.so (build the project or give -l)" >&2; exit 1; }
  LIB=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB")
fi

if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1
BASE_PETSC_OPTIONS=${PETSC_OPTIONS:-}

mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
mkdir -p "$OUTDIR/work"

# The harness runs PETSCDIFF as a command: an executable copy of normdiff.sh (a checkout may not keep the mode),
# checked once on two equal files and on two that differ, so that a broken wrapper cannot turn every test into a diff
install -m 755 "$HERE/normdiff.sh" "$OUTDIR/work/normdiff.sh"
printf 'type: seqaijcusparse\n' > "$OUTDIR/work/selfcheck.a"
printf 'type: seqaijcusparse\n' > "$OUTDIR/work/selfcheck.b"
printf 'type: seqaij\n' > "$OUTDIR/work/selfcheck.c"
PGF_PETSCDIFF=$PETSCDIFF_REAL "$OUTDIR/work/normdiff.sh" "$OUTDIR/work/selfcheck.a" "$OUTDIR/work/selfcheck.b" > /dev/null 2>&1 \
  || { echo "run.sh: $OUTDIR/work/normdiff.sh fails on equal files" >&2; exit 1; }
if PGF_PETSCDIFF=$PETSCDIFF_REAL "$OUTDIR/work/normdiff.sh" "$OUTDIR/work/selfcheck.a" "$OUTDIR/work/selfcheck.c" > /dev/null 2>&1; then
  echo "run.sh: $OUTDIR/work/normdiff.sh finds no difference between different files" >&2
  exit 1
fi
rm -f "$OUTDIR"/work/selfcheck.?

# ---- selection: sources whose TEST block names aijcusparse in an args: line (same list for every type)
"$PY" "$HERE/prepare.py" find --examples "$EX" --dirs "$DIRS" > "$OUTDIR/files.txt"
if [ -n "$MATCH" ]; then
  grep -E -- "$MATCH" "$OUTDIR/files.txt" > "$OUTDIR/files.match" || true
  mv "$OUTDIR/files.match" "$OUTDIR/files.txt"
fi
FILES=$(tr '\n' ' ' < "$OUTDIR/files.txt")
[ -n "${FILES// /}" ] || { echo "run.sh: no test source in '$DIRS'${MATCH:+ matching -f '$MATCH'} names aijcusparse in its args" >&2; exit 1; }
SRCDIRS=$(for f in $FILES; do dirname "$f"; done | sort -u)
echo "== $(wc -l < "$OUTDIR/files.txt") source files: $(echo $SRCDIRS)"

MAKE_ARGS=(-f gmakefile.test "PETSC_DIR=$PETSC_DIR" "PETSC_ARCH=" "PYTHON=$PY")
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
T_START=$(now)

# ---- per type: a fresh copy of the examples, the rewrite, the harness's parse, the selection
for T in $TYPES; do
  W=$OUTDIR/work/$T
  rm -rf "$W"
  mkdir -p "$W/src"
  cp "$EX/gmakefile.test" "$W/"
  cp -r "$EX/config" "$W/"
  for d in $SRCDIRS; do
    mkdir -p "$W/src/$d"
    cp -a "$EX/src/$d/." "$W/src/$d/"
  done
  if [ "$T" != aijcusparse ]; then
    "$PY" "$HERE/prepare.py" rewrite --examples "$EX" --work "$W" --type "$T" --files "$FILES" > "$W/rewrite.log"
  fi
  # the harness parses the TEST blocks and writes tests/testfiles and tests/datatest.pkl
  (cd "$W" && make -s "${MAKE_ARGS[@]}" print-test gmakesearch=none-at-all > "$W/gen.log" 2>&1) \
    || { echo "run.sh: the harness could not parse the tests of $W:" >&2; cat "$W/gen.log" >&2; exit 1; }
  np1=()
  [ "$NP" = 1 ] && np1=(--np1)
  "$PY" "$HERE/prepare.py" select --examples "$EX" --work "$W" --type "$T" --files "$FILES" ${np1[@]+"${np1[@]}"} \
    --labels "$W/labels.txt" --exes "$W/exes.txt" | tee "$W/select.log" | sed 's/^/== /' 
done
T_PREP=$(now)

# ---- build and run: one make, one jobserver (-j JOBS) for all types, so that they overlap
{
  echo "# written by run.sh: the build and test steps of every type under one jobserver"
  echo "all:"
  for T in $TYPES; do
    echo "all: test-$T"
    echo "test-$T: build-$T"
    printf '\t+@bash %q test %q\n' "$HERE/step.sh" "$T"
    echo "build-$T:"
    printf '\t+@bash %q build %q\n' "$HERE/step.sh" "$T"
    if [ "$BUILD_ONLY" = 1 ]; then echo "build: build-$T"; fi
  done
  echo ".PHONY: all build $(for T in $TYPES; do printf 'test-%s build-%s ' "$T" "$T"; done)"
} > "$OUTDIR/work/Makefile"
export PGF_OUT=$OUTDIR PGF_PETSC_DIR=$PETSC_DIR PGF_PY=$PY PGF_LIB=${LIB:-} PGF_TIMEOUT=$TIMEOUT PGF_HERE=$HERE \
  PGF_BASE_OPTIONS=$BASE_PETSC_OPTIONS
goal=all
[ "$BUILD_ONLY" = 1 ] && goal=build
# in a process group of its own, so that a TERM (timeout(1) at a caller's deadline) stops every test, after which the
# tests that ran are still summarized (the others: not-run)
stopped=0
on_term() {
  stopped=1
  if [ -n "${mpid:-}" ]; then kill -TERM -- "-$mpid" 2> /dev/null || true; fi
}
trap on_term TERM INT
setsid make --no-print-directory -j "$JOBS" -f "$OUTDIR/work/Makefile" "$goal" &
mpid=$!
make_rc=0
while true; do
  if wait "$mpid"; then
    make_rc=0
    break
  else
    make_rc=$?
  fi
  kill -0 "$mpid" 2> /dev/null || break # make has ended (a trapped signal also ends the wait while it still runs)
done
trap - TERM INT
[ "$stopped" = 1 ] || [ "$make_rc" = 0 ] || echo "== make exited with status $make_rc (a step of a type failed)" >&2
T_END=$(now)
for T in $TYPES; do
  W=$OUTDIR/work/$T
  printf '{"prepare_s": %s, "build_s": %s, "run_s": %s, "jobs": %s, "timeout": %s}\n' \
    "$(elapsed "$T_START" "$T_PREP")" "$(cat "$W/build.seconds" 2> /dev/null || echo null)" \
    "$(cat "$W/test.seconds" 2> /dev/null || echo null)" "$JOBS" "$TIMEOUT" > "$W/timing.json"
done
echo "== wall time: $(elapsed "$T_START" "$T_END") s (preparation $(elapsed "$T_START" "$T_PREP") s)"
echo "{\"wall_s\": $(elapsed "$T_START" "$T_END"), \"prepare_s\": $(elapsed "$T_START" "$T_PREP")}" > "$OUTDIR/work/timing.json"
[ "$BUILD_ONLY" = 1 ] && exit 0

stop_args=()
[ "$stopped" = 1 ] && stop_args=(--stopped)
[ -n "$BASELINE" ] && stop_args+=(--baseline "$BASELINE")
"$PY" "$HERE/summarize.py" --out "$OUTDIR" --types "$TYPES" --petsc-dir "$PETSC_DIR" --repo "$REPO" \
  --lib "${LIB:-}" --dirs "$DIRS" --np "$NP" --petsc-options "$BASE_PETSC_OPTIONS" ${stop_args[@]+"${stop_args[@]}"}
echo "== $OUTDIR/summary.md, $OUTDIR/results.tsv"
if [ "$stopped" = 1 ]; then
  echo "== stopped before every test ran: the summary marks the others not-run"
  exit 124
fi
