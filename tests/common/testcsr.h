#pragma once

/* Random CSR matrices with integer or real values, a comparison of vectors with Inf and NaN, and a product expected to fail, shared by the tests */
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
PetscErrorCode TestSetMatOption(Mat, const char *, const char *);
PetscErrorCode TestMultErrorWithOption(Mat, const char *, const char *, Vec, Vec, PetscErrorCode *);
