#!/bin/bash
# conf/setup.sh with a PETSC_DIR it did not install: an unsupported PETSc (every mismatch named), a static-only one,
# a non-empty folder that is not a PETSc and a file are refused, with nothing written there (every file's type,
# mode, time and SHA-256 compared before and after) nor in the build folder; the supported PETSc (argument 1, default
# /opt/petsc-cuda; skipped if absent) and a new folder are accepted in check-only mode, which writes nothing.
#   bash tests/setup/check_foreign_petsc.sh [SUPPORTED_PETSC_DIR]
# SETUP_SH names the script under test (default conf/setup.sh of this project). Exits 0 only if every check holds.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
setup=${SETUP_SH:-$root/conf/setup.sh}
supported=${1:-/opt/petsc-cuda}
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
failures=0
pass() { echo "ok:   $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { # check WHAT COMMAND...: pass if the command succeeds
  local what=$1
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}
# Every entry under $1: type, mode, modification time, size; and every file's SHA-256
listing() { (cd "$1" && find . -printf '%y %m %T@ %s %p\n' | sort && find . -type f -print0 | sort -z | xargs -0r sha256sum); }
# run_setup NAME PETSC_DIR [VAR=VALUE...]: conf/setup.sh without packages nor the prebuilt tarball, output in $tmp/NAME.out
run_setup() {
  local name=$1 dir=$2
  shift 2
  env -u PETSC_ARCH PETSC_DIR="$dir" BUILD_DIR="$tmp/build-$name" SETUP_SKIP_PACKAGES=1 PETSC_PREBUILT_TARBALL= "$@" \
    bash "$setup" >"$tmp/$name.out" 2>&1
  rc=$?
  sed "s/^/    [$name] /" "$tmp/$name.out"
}
expect_refused() { # NAME DIR PATTERN...: nonzero exit, each pattern in the output, DIR and the build folder untouched
  local name=$1 dir=$2 p
  shift 2
  listing "$dir" >"$tmp/$name.before"
  run_setup "$name" "$dir"
  if [ $rc != 0 ]; then pass "$name: refused (exit $rc)"; else fail "$name: setup exited 0"; fi
  for p in "$@"; do
    if grep -qF -- "$p" "$tmp/$name.out"; then pass "$name: says '$p'"; else fail "$name: does not say '$p'"; fi
  done
  listing "$dir" >"$tmp/$name.after"
  if cmp -s "$tmp/$name.before" "$tmp/$name.after"; then
    pass "$name: $(wc -l <"$tmp/$name.before") listing lines unchanged"
  else
    fail "$name: $dir changed:"
    diff "$tmp/$name.before" "$tmp/$name.after" | head -n 20
  fi
  if [ -e "$tmp/build-$name" ]; then fail "$name: the build folder was created"; else pass "$name: no build folder"; fi
}
# headers DIR: petscconf.h and petscversion.h of the supported PETSc in DIR/include (a minimal pair if it is absent)
headers() {
  mkdir -p "$1/include" "$1/lib"
  if [ -f "$supported/include/petscconf.h" ] && [ -f "$supported/include/petscversion.h" ]; then
    cp "$supported/include/petscconf.h" "$supported/include/petscversion.h" "$1/include/"
  else
    printf '#define PETSC_VERSION_MAJOR 3\n#define PETSC_VERSION_MINOR 22\n#define PETSC_VERSION_SUBMINOR 5\n' >"$1/include/petscversion.h"
    printf '#define PETSC_HAVE_CUDA 1\n#define PETSC_USE_REAL_DOUBLE 1\n#define PETSC_USE_SHARED_LIBRARIES 1\n' >"$1/include/petscconf.h"
  fi
}

# (a) unsupported in every checked way but one (it has a lib/libpetsc.so, so it counts as shared)
f=$tmp/foreign
headers "$f"
sed -i -E 's/^(#define PETSC_VERSION_MINOR[[:space:]]+)[0-9]+/\121/' "$f/include/petscversion.h"
sed -i -E '/^#define PETSC_(HAVE_CUDA|USE_REAL_DOUBLE)[[:space:]]/d' "$f/include/petscconf.h"
printf '#define PETSC_USE_REAL_SINGLE 1\n#define PETSC_USE_COMPLEX 1\n#define PETSC_USE_64BIT_INDICES 1\n#define PETSC_USE_DEBUG 1\n' >>"$f/include/petscconf.h"
: >"$f/lib/libpetsc.so"
mkdir -p "$f/lib/pkgconfig"
printf 'Name: PETSc\nVersion: 3.21.5\n' >"$f/lib/pkgconfig/PETSc.pc"
chmod -R a-w "$f" # as a PETSc installed by another user or by root; root still could write: the listing checks
expect_refused foreign "$f" "version 3.21" "no CUDA" "complex scalars" "precision not double" "64-bit PetscInt" \
  "debug build" "Nothing was changed there"
if grep -q "static libraries" "$tmp/foreign.out"; then fail "foreign: a mismatch it does not have (static)"; fi

# (a') supported but static only: no PETSC_USE_SHARED_LIBRARIES, lib/libpetsc.a
s=$tmp/static
headers "$s"
sed -i -E '/^#define PETSC_USE_SHARED_LIBRARIES[[:space:]]/d' "$s/include/petscconf.h"
: >"$s/lib/libpetsc.a"
expect_refused static "$s" "static libraries"
for p in "version" "no CUDA" "complex" "precision" "64-bit" "debug build"; do
  if grep -q -- "- $p" "$tmp/static.out"; then fail "static: a mismatch it does not have ($p)"; fi
done

# (b) a non-empty folder that is not a PETSc, and a file
n=$tmp/notpetsc
mkdir -p "$n/include" "$n/data"
echo "not PETSc" >"$n/README"
echo "#define X 1" >"$n/include/x.h"
expect_refused notpetsc "$n" "is not a PETSc installation" "wrote nothing there"
mkdir -p "$tmp/afile"
echo data >"$tmp/afile/petsc"
listing "$tmp/afile" >"$tmp/afile.before"
run_setup afile "$tmp/afile/petsc"
check "afile: a file as PETSC_DIR is refused (exit $rc)" [ $rc != 0 ]
check "afile: says so" grep -q "is not a folder" "$tmp/afile.out"
listing "$tmp/afile" >"$tmp/afile.after"
check "afile: unchanged" cmp -s "$tmp/afile.before" "$tmp/afile.after"

# (c) the supported PETSc, in check-only mode: accepted, nothing written
if [ -f "$supported/include/petscconf.h" ]; then
  listing "$supported" >"$tmp/supported.before"
  run_setup supported "$supported" SETUP_CHECK_ONLY=1
  check "supported: $supported accepted (exit $rc)" [ $rc = 0 ]
  check "supported: would use it as it is" grep -q "use the PETSc in $supported\$" "$tmp/supported.out"
  listing "$supported" >"$tmp/supported.after"
  check "supported: unchanged" cmp -s "$tmp/supported.before" "$tmp/supported.after"
  check "supported: no build folder" [ ! -e "$tmp/build-supported" ]
else
  echo "skip: no PETSc in $supported (part c)"
fi

# (d) a new folder, in check-only mode: PETSc would be built there from source; nothing is created
run_setup new "$tmp/new/petsc" SETUP_CHECK_ONLY=1
check "new: a new folder is accepted (exit $rc)" [ $rc = 0 ]
check "new: would build from source there" grep -q "build PETSc 3.22.5 from Debian's source package into $tmp/new/petsc " "$tmp/new.out"
check "new: no PETSc folder created" [ ! -e "$tmp/new" ]
check "new: no build folder" [ ! -e "$tmp/build-new" ]

if [ $failures = 0 ]; then
  echo "all checks hold"
else
  echo "$failures check(s) failed"
  exit 1
fi
