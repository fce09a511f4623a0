# shellcheck shell=bash
# Shell helpers shared by conf/setup.sh and conf/petsc/build-from-source.sh (sourced, not run).
# The caller sets TAG (the prefix of its messages), LOG_DIR (for step), packages and, to install, missing and sudo.

# step NAME WHAT COMMAND...: one line, the command's output in $LOG_DIR/NAME.log, its tail on failure
step() {
  local what=$2 log=$LOG_DIR/$1.log rc
  shift 2
  echo "$TAG: $what (log: $log)"
  set +e
  (set -e; "$@") >"$log" 2>&1
  rc=$?
  set -e
  if [ $rc != 0 ]; then
    echo "$TAG: FAILED: $what; the last 30 lines of its log:" >&2
    tail -n 30 "$log" >&2
    echo "$TAG: full log: $log" >&2
    exit $rc
  fi
}
# The nearest existing folder at or above $1
existing_parent() {
  local d=$1
  while [ ! -e "$d" ]; do d=$(dirname "$d"); done
  printf '%s\n' "$d"
}
# Free MB of the file system that holds $1 (or would hold it)
free_mb() { df -Pk "$(existing_parent "$1")" | awk 'NR==2 {print int($4 / 1024)}'; }
# The packages of $packages that dpkg does not list as installed, each followed by a space
# shellcheck disable=SC2154 # packages: the caller's
missing_packages() {
  local p
  for p in $packages; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || printf '%s ' "$p"
  done
}
# Installs $missing (set by the caller), never upgrading what is there ($sudo: empty as root, else "sudo")
# shellcheck disable=SC2154 # missing: the caller's
install_packages() {
  ${sudo:-} apt-get update
  # shellcheck disable=SC2086 # a list of package names
  ${sudo:-} env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-upgrade $missing
}
