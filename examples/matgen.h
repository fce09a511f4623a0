#pragma once

/*
   Test matrices for the benchmarks: generators (a matrix kind and its size from the options database), the
   PETSc binary and Matrix Market loaders, a Matrix Market writer and row-length statistics. Host MATSEQAIJ only;
   used by bench_spmv.c and genmat.c.
*/
#include <petscmat.h>

PETSC_EXTERN const char *const MatGenKinds[];

PETSC_EXTERN PetscErrorCode MatGenFromOptions(Mat *, char[], size_t, char[], size_t);
PETSC_EXTERN PetscErrorCode MatGenLoad(const char[], Mat *);
PETSC_EXTERN PetscErrorCode MatGenWriteMatrixMarket(Mat, const char[]);
PETSC_EXTERN PetscErrorCode MatGenRowStatistics(Mat, PetscInt64 *, PetscReal *, PetscReal *, PetscInt *);
