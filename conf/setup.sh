#!/bin/bash
# Makes a Debian or Ubuntu machine ready for petsc-gpuformats, then configures and builds it:
#   1. apt packages: compilers, CMake, OpenMPI, BLAS/LAPACK, clang-format (only the missing ones; needs root or sudo);
#   2. PETSc 3.22.5 (or 3.25.4, PETSC_VERSION) with CUDA in $PETSC_DIR (default /opt/petsc-cuda, /opt/petsc-cuda-3.25):
#      an existing PETSc there is checked and used if it fits (3.22 or 3.25, CUDA, real double, 32-bit PetscInt,
#      shared, optimized), never modified; otherwise PETSc is
#      installed there only if the folder does not exist or is empty: from the prebuilt tarball (built for
#      /opt/petsc-cuda), else built from Debian's source package with conf/petsc/build-from-source.sh;
#   3. cmake configure and build in $BUILD_DIR (default build/).
# Every prerequisite is checked before any work; each long step prints one line and logs to $BUILD_DIR/setup-logs/.
# Idempotent: packages and a fitting PETSc already present are kept, and the build is incremental.
# Environment:
#   PETSC_DIR, PETSC_ARCH    the PETSc to use or install (PETSC_ARCH: a build of a PETSc source tree in PETSC_DIR)
#   PETSC_VERSION            the PETSc to install: 3.22.5 (default) or 3.25.4 (prebuilt for /opt/petsc-cuda-3.25 if
#                            ../shared/petsc/petsc-3.25.4-cuda13-sm90-openmpi.tar.xz exists, else built from
#                            ../shared/petsc/petsc-3.25.4.tar.xz or SOURCE_TARBALL)
#   BUILD_DIR                build folder (default build/ in the project)
#   PETSC_PREBUILT_TARBALL   prebuilt PETSc for /opt/petsc-cuda (default ../shared/petsc/petsc-3.22.5-cuda13-sm90-openmpi.tar.xz
#                            beside the project, if there; for 3.25.4 the same name with its version, for /opt/petsc-cuda-3.25);
#                            empty: build from source
#   SETUP_SKIP_PACKAGES=1    do not check or install apt packages (install them yourself)
#   SETUP_CHECK_ONLY=1       check the prerequisites and say what would be done; change nothing
#   DEBIAN_MIRROR, DEBIAN_SUITE, KEEP_WORK   for the source build (conf/petsc/build-from-source.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
abspath() { case $1 in /*) printf '%s\n' "${1%/}" ;; *) printf '%s\n' "$PWD/${1%/}" ;; esac; }
PETSC_VERSION=${PETSC_VERSION:-3.22.5}
case $PETSC_VERSION in
  3.22.5) prebuilt_prefix=/opt/petsc-cuda petsc_source="Debian's source package" ;;
  3.25.4) prebuilt_prefix=/opt/petsc-cuda-3.25 petsc_source="PETSc's release tarball" ;;
  *) echo "setup: PETSC_VERSION=$PETSC_VERSION: 3.22.5 or 3.25.4" >&2; exit 2 ;;
esac
PETSC_DIR=$(abspath "${PETSC_DIR:-$prebuilt_prefix}")
user_arch=${PETSC_ARCH:-}
BUILD_DIR=$(abspath "${BUILD_DIR:-$root/build}")
LOG_DIR=$BUILD_DIR/setup-logs
# built for prebuilt_prefix, as one folder named like it
default_tarball=$(dirname "$root")/shared/petsc/petsc-$PETSC_VERSION-cuda13-sm90-openmpi.tar.xz
packages="cmake g++ make pkg-config libopenmpi-dev openmpi-bin liblapack-dev libblas-dev xz-utils python3 clang-format"
export PATH="/usr/local/cuda/bin:$PATH"

TAG=setup
# shellcheck source=conf/lib.sh
. "$root/conf/lib.sh"
say() { echo "setup: $*"; }
problems=()
problem() { problems+=("$*"); }
has_define() { grep -Eq "^[[:space:]]*#[[:space:]]*define[[:space:]]+$1([[:space:]]|$)" "$2"; }
define_value() { sed -nE "s/^[[:space:]]*#[[:space:]]*define[[:space:]]+$1[[:space:]]+([0-9]+).*/\1/p" "$2" | head -n 1; }
# petsc_mismatches DIR CONF: one line for each way the PETSc in DIR (configuration in CONF: DIR, or DIR/PETSC_ARCH of a
# source tree) differs from what the plugin supports
petsc_mismatches() {
  local v=$1/include/petscversion.h c=$2/include/petscconf.h ver d
  if [ -f "$v" ]; then
    ver="$(define_value PETSC_VERSION_MAJOR "$v").$(define_value PETSC_VERSION_MINOR "$v").$(define_value PETSC_VERSION_SUBMINOR "$v")"
    case $ver in 3.22.* | 3.25.*) ;; *) echo "version $ver: 3.22.x or 3.25.x is needed" ;; esac
  else
    echo "no include/petscversion.h: its version is unknown (3.22.x or 3.25.x is needed)"
  fi
  if [ ! -f "$c" ]; then
    local builds=""
    for d in "$1"/*/include/petscconf.h; do [ -f "$d" ] && builds="$builds $(basename "$(dirname "$(dirname "$d")")")"; done
    if [ -n "$builds" ]; then
      echo "a PETSc source tree: set PETSC_ARCH to one of its builds:$builds"
    else
      echo "no $c: its configuration is unknown"
    fi
    return 0
  fi
  has_define PETSC_HAVE_CUDA "$c" || echo "no CUDA (PETSC_HAVE_CUDA undefined): configure PETSc --with-cuda"
  if has_define PETSC_USE_COMPLEX "$c"; then echo "complex scalars (PETSC_USE_COMPLEX): real ones are needed (--with-scalar-type=real)"; fi
  has_define PETSC_USE_REAL_DOUBLE "$c" || echo "precision not double (PETSC_USE_REAL_DOUBLE undefined): --with-precision=double is needed"
  if has_define PETSC_USE_64BIT_INDICES "$c"; then echo "64-bit PetscInt (PETSC_USE_64BIT_INDICES): 32-bit is needed (--with-64-bit-indices=0)"; fi
  if ! has_define PETSC_USE_SHARED_LIBRARIES "$c" && [ ! -e "$2/lib/libpetsc.so" ]; then
    echo "static libraries (no PETSC_USE_SHARED_LIBRARIES, no lib/libpetsc.so): shared ones are needed (--with-shared-libraries=1)"
  fi
  if has_define PETSC_USE_DEBUG "$c"; then echo "a debug build (PETSC_USE_DEBUG): an optimized one is needed (--with-debugging=0)"; fi
  if [ ! -f "$2/lib/pkgconfig/PETSc.pc" ] && [ ! -f "$2/lib/pkgconfig/petsc.pc" ]; then
    echo "no lib/pkgconfig/PETSc.pc (what the build reads): an incomplete installation"
  fi
  return 0
}

# ---- Checks, before any work -------------------------------------------------------------------------------------
# CUDA toolkit
cuda_major=""
if [ -x /usr/local/cuda/bin/nvcc ]; then
  cuda_version=$(/usr/local/cuda/bin/nvcc --version | sed -n 's/.*release \([0-9][0-9.]*\),.*/\1/p')
  cuda_major=${cuda_version%%.*}
  case $cuda_version in
    13.0) say "CUDA $cuda_version in /usr/local/cuda (tested)" ;;
    13.*) say "CUDA $cuda_version in /usr/local/cuda (untested: CUDA 13.0 is the tested version)" ;;
    12.*) say "CUDA $cuda_version in /usr/local/cuda (untested: CUDA 13.0 is the tested version; the prebuilt PETSc needs CUDA 13)" ;;
    *) problem "CUDA ${cuda_version:-of unknown version} in /usr/local/cuda: CUDA 13 is needed (13.0 tested; 12.x untested)" ;;
  esac
else
  problem "no CUDA toolkit: /usr/local/cuda/bin/nvcc not found; install CUDA 13 (13.0 tested) in /usr/local/cuda, e.g. NVIDIA's package cuda-toolkit-13-0"
fi

# Packages
missing=""
if [ "${SETUP_SKIP_PACKAGES:-0}" = 1 ]; then
  say "SETUP_SKIP_PACKAGES=1: not checking apt packages ($packages)"
  for c in cmake mpicc mpicxx c++ make pkg-config python3; do
    command -v "$c" >/dev/null || problem "$c not found (SETUP_SKIP_PACKAGES=1: install it yourself)"
  done
elif ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
  problem "no apt-get/dpkg-query: setup installs Debian packages; install the equivalents of: $packages, then run with SETUP_SKIP_PACKAGES=1"
else
  missing=$(missing_packages)
  missing=${missing:+ ${missing% }}
fi
if command -v cmake >/dev/null; then
  cmake_version=$(cmake --version | sed -n '1s/[^0-9]*\([0-9][0-9.]*\).*/\1/p')
elif [[ " $missing " == *" cmake "* ]]; then
  cmake_version=$(apt-cache policy cmake 2>/dev/null | sed -n 's/^ *Candidate: \([0-9.]*\).*/\1/p')
fi
if [ -n "${cmake_version:-}" ] && [ "$(printf '%s\n3.25\n' "$cmake_version" | sort -V | head -n 1)" != 3.25 ]; then
  problem "CMake $cmake_version is older than 3.25: install a newer CMake (e.g. pip install cmake) and run with SETUP_SKIP_PACKAGES=1"
fi

# PETSc: use the one in PETSC_DIR if it fits, install only into a new or empty folder
petsc_conf=$PETSC_DIR
petsc_arch=""
if [ -n "$user_arch" ]; then
  if [ -d "$PETSC_DIR/$user_arch" ]; then
    petsc_conf=$PETSC_DIR/$user_arch
    petsc_arch=$user_arch
  else
    say "PETSC_ARCH=$user_arch ignored: no $PETSC_DIR/$user_arch"
  fi
fi
petsc_mode=""
tarball=""
if [ -e "$PETSC_DIR" ] && [ ! -d "$PETSC_DIR" ]; then
  problem "PETSC_DIR=$PETSC_DIR is not a folder; nothing was written there"
elif [ -f "$PETSC_DIR/include/petscversion.h" ] || [ -e "$PETSC_DIR/lib/libpetsc.so" ] || [ -e "$petsc_conf/lib/libpetsc.so" ]; then
  mismatches=$(petsc_mismatches "$PETSC_DIR" "$petsc_conf")
  if [ -n "$mismatches" ]; then
    problem "PETSC_DIR=$PETSC_DIR${petsc_arch:+ (PETSC_ARCH=$petsc_arch)} is a PETSc that petsc-gpuformats does not support:
    - ${mismatches//$'\n'/$'\n'    - }
  Nothing was changed there. Point PETSC_DIR (and PETSC_ARCH) at a PETSc 3.22 or 3.25 built --with-cuda --with-debugging=0
  --with-scalar-type=real --with-precision=double --with-64-bit-indices=0 --with-shared-libraries=1, or at a new or
  empty folder to install one there$(
    [ "$PETSC_DIR" = "$prebuilt_prefix" ] || echo ", or unset PETSC_DIR and PETSC_ARCH to use $prebuilt_prefix")."
  else
    petsc_mode=use
    say "PETSc $(sed -n 's/^Version: //p' "$petsc_conf"/lib/pkgconfig/[Pp][Ee][Tt][Ss][Cc].pc | head -n 1) in $PETSC_DIR${petsc_arch:+ (PETSC_ARCH=$petsc_arch)} fits; it is used as it is"
  fi
elif [ -d "$PETSC_DIR" ] && [ -n "$(ls -A "$PETSC_DIR")" ]; then
  problem "PETSC_DIR=$PETSC_DIR exists, is not empty and is not a PETSc installation (no include/petscversion.h, no lib/libpetsc.so); setup installs PETSc only into a new or empty folder, and wrote nothing there"
else
  # Install: the prebuilt tarball if it applies, else the source build
  if [ -n "${PETSC_PREBUILT_TARBALL+set}" ]; then
    tarball=$PETSC_PREBUILT_TARBALL
    tarball_given=1
  else
    tarball=$default_tarball
    tarball_given=0
  fi
  petsc_mode=source
  if [ -z "$tarball" ]; then
    :
  elif [ ! -r "$tarball" ]; then
    say "no prebuilt PETSc at $tarball (no ../shared beside the project?): PETSc will be built from $petsc_source instead"
    tarball=""
  elif [ "$PETSC_DIR" != "$prebuilt_prefix" ]; then
    if [ $tarball_given = 1 ]; then
      problem "the prebuilt PETSc ($tarball) is built for $prebuilt_prefix, not PETSC_DIR=$PETSC_DIR: unset PETSC_DIR, or set PETSC_PREBUILT_TARBALL= (empty) to build from source into $PETSC_DIR"
    else
      say "the prebuilt PETSc is built for $prebuilt_prefix, not $PETSC_DIR: PETSc will be built from $petsc_source"
    fi
    tarball=""
  elif [ -n "$cuda_major" ] && [ "$cuda_major" != 13 ]; then
    if [ $tarball_given = 1 ]; then
      problem "the prebuilt PETSc ($tarball) needs CUDA 13 (libcudart.so.13), this is CUDA $cuda_version: set PETSC_PREBUILT_TARBALL= (empty) to build from source"
    else
      say "the prebuilt PETSc needs CUDA 13: PETSc will be built from $petsc_source"
    fi
    tarball=""
  fi
  [ -z "$tarball" ] || petsc_mode=prebuilt
fi

if [ "$petsc_mode" = source ] && [ "$PETSC_VERSION" = 3.25.4 ]; then
  source_tarball=${SOURCE_TARBALL:-$(dirname "$root")/shared/petsc/petsc-3.25.4.tar.xz}
  [ -r "$source_tarball" ] || problem "no PETSc 3.25.4 source at $source_tarball: set SOURCE_TARBALL to PETSc's petsc-3.25.4.tar.xz"
fi

# Root: for missing packages, PETSc's folder and CUDA's lib link
root_for=()
root_cmds=()
if [ -n "$missing" ]; then
  root_for+=("packages:$missing")
  root_cmds+=("apt-get install --no-upgrade -y$missing")
fi
if [ "$petsc_mode" = prebuilt ] || [ "$petsc_mode" = source ]; then
  if [ -d "$PETSC_DIR" ]; then w=$PETSC_DIR; else w=$(existing_parent "$PETSC_DIR"); fi
  if [ ! -w "$w" ] || { [ "$petsc_mode" = prebuilt ] && [ ! -w "$(existing_parent "$(dirname "$PETSC_DIR")")" ]; }; then
    root_for+=("writing $PETSC_DIR")
    root_cmds+=("mkdir -p $PETSC_DIR && chown $(id -un) $PETSC_DIR")
  fi
fi
cuda_link=0
if [ -n "$cuda_major" ] && [ ! -e /usr/local/cuda/lib ] && [ -d /usr/local/cuda/lib64 ]; then
  cuda_link=1 # PETSc links CUDA from /usr/local/cuda/lib; some CUDA installs only have lib64
  if [ ! -w /usr/local/cuda ]; then
    root_for+=("the link /usr/local/cuda/lib -> lib64")
    root_cmds+=("ln -s lib64 /usr/local/cuda/lib")
  fi
fi
sudo=""
if [ ${#root_for[@]} -gt 0 ] && [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo=sudo
  elif [ "${SETUP_CHECK_ONLY:-0}" != 1 ] && command -v sudo >/dev/null && [ -t 0 ] &&
    say "sudo is needed for: $(IFS=';'; echo "${root_for[*]}")" && sudo -v; then
    sudo=sudo
  else
    as_root=${root_cmds[0]}
    for c in "${root_cmds[@]:1}"; do as_root="$as_root && $c"; done
    problem "root or a working sudo is needed; as root run:  $as_root  then run setup again"
  fi
fi

# Disk, per file system: 0.5 GB for the build, 0.5 GB for PETSc, 2 GB more for PETSc's source build
declare -A need_mb=() where=()
add_need() {
  local fs
  fs=$(df -P "$(existing_parent "$1")" | awk 'NR==2 {print $6}')
  need_mb[$fs]=$((${need_mb[$fs]:-0} + $2))
  where[$fs]="${where[$fs]:+${where[$fs]}, }$1"
}
if [ -f "$BUILD_DIR/CMakeCache.txt" ]; then add_need "$BUILD_DIR" 100; else add_need "$BUILD_DIR" 500; fi
case $petsc_mode in
  prebuilt) add_need "$PETSC_DIR" 500 ;;
  source) add_need "$PETSC_DIR" 500; add_need "${TMPDIR:-/tmp}" 2048 ;;
esac
for fs in "${!need_mb[@]}"; do
  free=$(free_mb "$fs")
  if [ "$free" -lt "${need_mb[$fs]}" ]; then
    problem "not enough disk: ${need_mb[$fs]} MB needed on $fs (for ${where[$fs]}), $free MB free"
  fi
done

if [ ${#problems[@]} -gt 0 ]; then
  echo "setup: stopped before doing anything:" >&2
  for p in "${problems[@]}"; do echo "  - $p" >&2; done
  exit 1
fi
case $petsc_mode in
  prebuilt) petsc_plan="extract the prebuilt PETSc $tarball into $PETSC_DIR" ;;
  source) petsc_plan="build PETSc $PETSC_VERSION from $petsc_source into $PETSC_DIR (long; about 3 GB of disk)" ;;
  *) petsc_plan="use the PETSc in $PETSC_DIR${petsc_arch:+ (PETSC_ARCH=$petsc_arch)}" ;;
esac
if [ "${SETUP_CHECK_ONLY:-0}" = 1 ]; then
  say "SETUP_CHECK_ONLY=1: the prerequisites hold; setup would:"
  [ -z "$missing" ] || echo "  - install the packages$missing"
  echo "  - $petsc_plan"
  [ $cuda_link = 0 ] || echo "  - link /usr/local/cuda/lib to lib64"
  echo "  - configure and build in $BUILD_DIR"
  exit 0
fi

# ---- Work ----------------------------------------------------------------------------------------------------------
mkdir -p "$LOG_DIR"
[ -z "$missing" ] || step packages "installing packages:$missing" install_packages

# Into a folder beside PETSC_DIR first, then renamed: an interrupted extraction leaves no half PETSc in PETSC_DIR
extract_prebuilt() {
  local parent
  parent=$(dirname "$PETSC_DIR")
  $sudo mkdir -p "$parent"
  stage=$($sudo mktemp -d "$parent/.petsc-setup.XXXXXX")
  trap '$sudo rm -rf "$stage"' EXIT # runs in step's subshell
  $sudo tar xJf "$tarball" -C "$stage"
  local top
  top=$(basename "$prebuilt_prefix")
  [ -f "$stage/$top/include/petscversion.h" ] || { echo "$tarball holds no $top/include/petscversion.h"; return 1; }
  if [ -d "$PETSC_DIR" ]; then $sudo rmdir "$PETSC_DIR"; fi # empty: checked above
  $sudo mv "$stage/$top" "$PETSC_DIR"
}
case $petsc_mode in
  prebuilt) step petsc "extracting the prebuilt PETSc $PETSC_VERSION into $PETSC_DIR" extract_prebuilt ;;
  source)
    say "building PETSc $PETSC_VERSION from $petsc_source into $PETSC_DIR: a long compile (logs: $LOG_DIR/petsc/)"
    mkdir -p "$LOG_DIR/petsc"
    build_env=(PREFIX="$PETSC_DIR" LOG_DIR="$LOG_DIR/petsc" TMPDIR="${TMPDIR:-/tmp}" SETUP_SKIP_PACKAGES=1 PETSC_VERSION="$PETSC_VERSION")
    for v in DEBIAN_MIRROR DEBIAN_SUITE KEEP_WORK SOURCE_TARBALL; do [ -z "${!v:-}" ] || build_env+=("$v=${!v}"); done
    # PETSc's environment of the caller must not reach PETSc's own configure and make
    if ! $sudo env -u PETSC_DIR -u PETSC_ARCH "${build_env[@]}" bash "$root/conf/petsc/build-from-source.sh"; then
      [ -z "$sudo" ] || $sudo chown -R "$(id -u):$(id -g)" "$LOG_DIR/petsc"
      echo "setup: FAILED: the PETSc build (logs: $LOG_DIR/petsc/); if its install step had begun, remove $PETSC_DIR before running setup again" >&2
      exit 1
    fi
    [ -z "$sudo" ] || $sudo chown -R "$(id -u):$(id -g)" "$LOG_DIR/petsc"
    ;;
esac
if [ "$petsc_mode" != use ]; then
  mismatches=$(petsc_mismatches "$PETSC_DIR" "$PETSC_DIR")
  [ -z "$mismatches" ] || { echo "setup: the PETSc installed in $PETSC_DIR does not fit:" >&2; echo "$mismatches" >&2; exit 1; }
fi
[ $cuda_link = 0 ] || $sudo ln -s lib64 /usr/local/cuda/lib

step cmake-configure "configuring in $BUILD_DIR (PETSc: $PETSC_DIR${petsc_arch:+, PETSC_ARCH=$petsc_arch})" \
  cmake -S "$root" -B "$BUILD_DIR" -DPETSC_DIR="$PETSC_DIR" -DPETSC_ARCH="$petsc_arch" -DCMAKE_BUILD_TYPE=Release
step cmake-build "building in $BUILD_DIR on $(nproc) cores" cmake --build "$BUILD_DIR" -j "$(nproc)"
say "built in $BUILD_DIR; run the tests with: ctest --test-dir $BUILD_DIR --output-on-failure"
