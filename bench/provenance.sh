# shellcheck shell=bash
# Sourced by the benchmark drivers (run_suite.sh, mpi.sh): the provenance that the benchmark programs write into their
# records, GIT_COMMIT and GIT_DIRTY (0 or 1), from git where the checkout has it; on a host without .git pass them in
# the environment.
if [[ -z ${GIT_COMMIT:-} ]] && git -C "$(dirname "${BASH_SOURCE[0]}")/.." rev-parse --short HEAD > /dev/null 2>&1; then
  GIT_COMMIT=$(git -C "$(dirname "${BASH_SOURCE[0]}")/.." rev-parse --short HEAD)
  if [[ -n $(git -C "$(dirname "${BASH_SOURCE[0]}")/.." status --porcelain --untracked-files=no) ]]; then GIT_DIRTY=1; else GIT_DIRTY=0; fi
fi
export GIT_COMMIT=${GIT_COMMIT:-} GIT_DIRTY=${GIT_DIRTY:-}
