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
