#pragma once

#include <petscsys.h>
#include <petscdevice_cuda.h>

/* Balanced CSR kernels, the yardsticks of bench_spmv: see spmv_balanced.cu */
PETSC_EXTERN PetscErrorCode SpMVBalancedBlocks(PetscInt *);
PETSC_EXTERN PetscErrorCode SpMVBalancedLaunch(PetscBool, PetscInt, PetscInt, PetscInt64, const int *, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscScalar *, cudaStream_t);
