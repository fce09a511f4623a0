#pragma once

/* What the benchmark programs (bench_spmv.c, bench_mpi.c) share */
#include <petscsys.h>

/* The median of v[0..n), which it sorts */
PETSC_EXTERN PetscErrorCode BenchMedianReal(PetscInt, PetscReal[], PetscReal *);
/* Device-to-device copy bandwidth in GB/s: median of reps cudaMemcpy() of mib MiB, each byte read and written once */
PETSC_EXTERN PetscErrorCode BenchMeasureCopyBandwidth(PetscInt, PetscInt, PetscReal *);
/* -help: also prints the matrix options (matgen.c), then *stop with *rc = 0, no GPU needed; no usable CUDA device: one line
   on stderr naming the program, then *stop with *rc = 1. The caller finalizes PETSc and returns *rc when *stop. */
PETSC_EXTERN PetscErrorCode BenchHelpOrNoDevice(const char[], PetscBool *, int *);

/* Where a record comes from: the commit (GIT_COMMIT in the environment, as bench/run_suite.sh and bench/mpi.sh set it,
   else the commit CMake saw at configure time, marked so), whether the tree differed from it (GIT_DIRTY: 0 or 1, else
   unknown), the CUDA driver and runtime and PETSc's version */
typedef struct {
  char commit[64], dirty[8], petsc[64];
  int  driver, runtime; /* CUDA versions, 1000 major + 10 minor */
} BenchProvenance;
PETSC_EXTERN PetscErrorCode BenchGetProvenance(BenchProvenance *);
/* The provenance as JSON members, without braces: "commit": ..., "dirty": true|false|null, "cuda_driver": "13.0",
   "cuda_runtime": "13.0", "petsc": ... */
PETSC_EXTERN PetscErrorCode BenchProvenanceJSON(const BenchProvenance *, char[], size_t);

/* The options both benchmarks take, inside their options block: -warmup, -batches, -reps, -bw_mib, -bw_reps */
/* The options object of a PetscOptionsBegin() block: a pointer to PetscOptionItems up to PETSc 3.22, a PetscOptionItems
   (itself a pointer type) since 3.23 */
#if PETSC_VERSION_GE(3, 23, 0)
typedef PetscOptionItems BenchOptionItems;
#else
typedef PetscOptionItems *BenchOptionItems;
#endif

PETSC_EXTERN PetscErrorCode BenchTimingOptions(BenchOptionItems, PetscInt *, PetscInt *, PetscInt *, PetscInt *, PetscInt *);
