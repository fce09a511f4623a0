#pragma once

#include <petscsys.h>
#include <petscdevice_cuda.h>

/* Balanced CSR kernels, the yardsticks of bench_spmv: see spmv_balanced.cu */
typedef enum {
  SPMV_BALANCED_STREAM, /* reads the CSR arrays only */
  SPMV_BALANCED_GATHER, /* the traffic of a product */
  SPMV_BALANCED_HOT     /* the same with the hot columns of x packed */
} SpMVBalancedKind;

PETSC_EXTERN PetscErrorCode SpMVBalancedBlocks(SpMVBalancedKind, PetscInt *);
PETSC_EXTERN PetscErrorCode SpMVBalancedLaunch(SpMVBalancedKind, PetscInt, PetscInt, PetscInt64, const int *, const PetscScalar *, const PetscScalar *, PetscInt, const int *, PetscScalar *, PetscScalar *, PetscScalar *, cudaStream_t);
/* an empty kernel: the floor of one launch */
PETSC_EXTERN PetscErrorCode SpMVEmptyLaunch(const PetscScalar *, PetscScalar *, cudaStream_t);
