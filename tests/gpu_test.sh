#!/bin/sh
# Runs a GPU test: reports it skipped (exit 200, the SKIP_RETURN_CODE of the gpu tests) where no CUDA device is usable.
# Not 77: a PETSc program returns its error code, and PETSC_ERR_PLIB is 77; PETSc codes stay below 200.
#   gpu_test.sh PROBE COMMAND [ARGS...]
probe=$1
shift
if ! "$probe"; then
  echo "skipped: no CUDA device"
  exit 200
fi
exec "$@"
