#!/bin/sh
# Every program's -help prints its help and exits 0, without a GPU and with no side effect (no file written in the
# folder it runs from). Shell scripts run with bash, Python scripts with python3 -h.   help.sh PROGRAM [PROGRAM...]
set -eu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for prog in "$@"; do
  name=$(basename "$prog")
  case $prog in
    *.sh) cmd="bash $prog -help" ;;
    *.py) cmd="python3 $prog -h" ;;
    *) cmd="$prog -help" ;;
  esac
  if ! out=$(cd "$work" && $cmd 2>&1); then
    printf '%s\n' "$out" | tail -20
    echo "FAILED: $name -help exits nonzero"
    exit 1
  fi
  [ -n "$out" ] || { printf '%s\n' "$out" | tail -20; echo "FAILED: $name -help prints nothing"; exit 1; }
  if [ -n "$(ls -A "$work")" ]; then
    ls -la "$work"
    echo "FAILED: $name -help wrote files"
    exit 1
  fi
  echo "$name -help: $(printf '%s\n' "$out" | head -1)"
done
