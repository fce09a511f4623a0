#pragma once

/* Random CSR matrices with integer or real values, and a comparison of vectors with Inf and NaN, shared by the tests */
#include <petscmat.h>

typedef struct {
  PetscInt     m, n, nnz;
  PetscInt    *rowptr, *colind;
  PetscScalar *val;
} CSR;

PetscErrorCode CSRCreate(PetscRandom, PetscInt, PetscInt, const PetscInt *, PetscBool, CSR *);
PetscErrorCode CSRDestroy(CSR *);
PetscErrorCode CSRToMat(const CSR *, Mat *);
PetscErrorCode VecFirstDifference(Vec, Vec, PetscReal, const char *, PetscInt *);
