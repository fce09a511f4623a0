#pragma once

/*
   ARG-CSR, Adaptive Row-Grouped CSR (Heller & Oberhuber; docs/reference/seeds-spec.md section 5): groups of consecutive
   rows, one CUDA block of `block` threads each; each row of a group gets one thread or more (the rows whose chunks would
   be fullest get the group's free threads), each thread a chunk of chunkSize consecutive entries of its row, stored like
   the rows of sliced ELL, column-wise: slot i of the group's thread t at offset + t + i * block, column -1 in padding. A
   thread stops at its first padding slot; a row then adds its threads' partial sums in order. The arrays below describe
   the format on the host (the reference, argcsr.c); the device (cuda/argcsr.cu) keeps the same layout.
*/
#include "../common/gpuformat.h"

typedef struct {
  int firstRow, size, offset, chunkSize; /* rows [firstRow, firstRow + size); slots from offset; entries per thread */
} ARGCSRGroup;

typedef struct {
  PetscInt     m, n, nnz;
  PetscInt     block;   /* threads per group (the paper's blockDim.x) */
  PetscInt     desired; /* the paper's desiredChunkSize: a group closes before its entries pass desired * block */
  PetscInt     ngroups, nslots;
  ARGCSRGroup *groups; /* ngroups */
  int         *map;    /* m: for each row, the group's inclusive prefix sum of the threads of its rows up to this one */
  int         *col;    /* nslots, -1 in padding */
  PetscScalar *val;    /* nslots, 0 in padding */
} ARGCSRArrays;

#define ARGCSR_DEFAULT_BLOCK   128 /* the paper's best blockDim.x */
#define ARGCSR_DEFAULT_DESIRED 1   /* the paper's default desiredChunkSize, "more robust" */

PETSC_INTERN PetscInt       ARGCSRGroupRows(PetscInt, const PetscInt *, PetscInt, PetscInt, PetscInt);
PETSC_INTERN PetscErrorCode ARGCSRThreadsClosedForm(PetscInt, const PetscInt *, PetscInt, PetscInt *, PetscInt *);
PETSC_INTERN PetscErrorCode ARGCSRBuildHost(PetscInt, PetscInt, const PetscInt *, const PetscInt *, const PetscScalar *, PetscInt, PetscInt, ARGCSRArrays *);
PETSC_INTERN PetscErrorCode ARGCSRMultHost(const ARGCSRArrays *, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode ARGCSRDestroyHost(ARGCSRArrays *);

PETSC_INTERN MatGPUFormatOps MatARGCSROps;
PETSC_INTERN PetscErrorCode  MatCreate_SeqARGCSR(Mat);
