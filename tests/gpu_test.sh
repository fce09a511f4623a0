#!/bin/sh
# Runs a GPU test: reports it skipped (exit 77, CTest's SKIP_RETURN_CODE) where no CUDA device is usable.
#   gpu_test.sh PROBE COMMAND [ARGS...]
probe=$1
shift
if ! "$probe"; then
  echo "skipped: no CUDA device"
  exit 77
fi
exec "$@"
