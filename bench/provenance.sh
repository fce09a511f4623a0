# shellcheck shell=bash
# Sourced by the benchmark drivers (run_suite.sh, mpi.sh): the provenance that the benchmark programs write into their
# records, GIT_COMMIT and GIT_DIRTY (0 or 1), from git where the checkout has it; on a host without .git pass them in
# the environment.
if [[ -z ${GIT_COMMIT:-} ]] && git -C "$(dirname "${BASH_SOURCE[0]}")/.." rev-parse --short HEAD > /dev/null 2>&1; then
  GIT_COMMIT=$(git -C "$(dirname "${BASH_SOURCE[0]}")/.." rev-parse --short HEAD)
  if [[ -n $(git -C "$(dirname "${BASH_SOURCE[0]}")/.." status --porcelain --untracked-files=no) ]]; then GIT_DIRTY=1; else GIT_DIRTY=0; fi
fi
export GIT_COMMIT=${GIT_COMMIT:-} GIT_DIRTY=${GIT_DIRTY:-}
# The same provenance as JSON members (no braces), for drivers that write records themselves, with the keys that
# bench_spmv and bench_mpi write: "commit", "dirty", "cuda_driver" (the driver's CUDA version), "cuda_runtime" (the
# toolkit's, from nvcc) and "petsc" (the version of $PETSC_DIR, default /opt/petsc-cuda)
provenance_json() {
  local driver runtime petsc dirty v
  driver=$(nvidia-smi 2> /dev/null | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -n 1)
  runtime=$( (nvcc --version 2> /dev/null || /usr/local/cuda/bin/nvcc --version 2> /dev/null) | sed -n 's/.*release \([0-9.]*\).*/\1/p' | head -n 1)
  v=${PETSC_DIR:-/opt/petsc-cuda}/include/petscversion.h
  petsc=""
  if [[ -f $v ]]; then
    petsc=$(awk '/define PETSC_VERSION_(MAJOR|MINOR|SUBMINOR) / {x[$2] = $3} END {if (length(x) == 3) printf "%s.%s.%s", x["PETSC_VERSION_MAJOR"], x["PETSC_VERSION_MINOR"], x["PETSC_VERSION_SUBMINOR"]}' "$v")
  fi
  case ${GIT_DIRTY:-} in 1) dirty=true ;; 0) dirty=false ;; *) dirty=null ;; esac
  printf '"commit": "%s", "dirty": %s, "cuda_driver": "%s", "cuda_runtime": "%s", "petsc": "%s"' "${GIT_COMMIT:-unknown}" "$dirty" "$driver" "$runtime" "$petsc"
}
